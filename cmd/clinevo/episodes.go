package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/runstatus"
)

// episodeRow is what `episode list --json` prints per episode.
type episodeRow = runstatus.Episode

func (a *app) episodeListCmd() *cobra.Command {
	var run, where string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List a run's episode workflows from Temporal, filtered by their search attributes",
		Long: "List a run's episode workflows from Temporal's visibility store (no Temporal CLI needed), filtered by\n" +
			"--where: comparisons joined by 'and' or ',' over S, stage, pass, index (numbers: < <= > >= = !=) and\n" +
			"case, condition, kind, status (= or !=). The IDs are what `episode show` takes.",
		Example: `  clinevo episode list --run quick-E1
  clinevo episode list --run quick-E1 --where 'S<0.5'
  clinevo episode list --run quick-E1 --where 'stage>=3 and condition=angina' --json
  clinevo episode list --run quick-H0 --where status=running`,
		Args: cobra.NoArgs,
		PreRunE: func(cmd *cobra.Command, _ []string) error {
			if run == "" {
				return badInput(fmt.Errorf("episode list: --run RUN is required"))
			}
			if err := contract.ValidateRunID(run); err != nil {
				return badInput(fmt.Errorf("episode list: --run: %w", err))
			}
			_, err := runstatus.Where(where)
			return badInput(err)
		},
		RunE: a.withClient(func(cmd *cobra.Command, _ []string, c client.Client) error {
			q, _ := runstatus.Where(where) // checked in PreRunE
			eps, err := runstatus.Episodes(cmd.Context(), c, run, q)
			if err != nil {
				return err
			}
			if eps == nil {
				eps = []runstatus.Episode{} // JSON: an empty list, not null
			}
			if err := output(cmd, asJSON, eps, func(w io.Writer) error { return runstatus.WriteEpisodes(w, eps) }); err != nil || asJSON {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "%d episodes\n", len(eps))
			return nil
		}),
	}
	cmd.Flags().StringVar(&run, "run", "", "the run whose episodes to list (required)")
	cmd.Flags().StringVar(&where, "where", "", "filter, e.g. 'S<0.5' or 'stage=2 and condition=angina'")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the episodes as JSON")
	_ = cmd.RegisterFlagCompletionFunc("run", a.completeRuns)
	return cmd
}
