package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/runstatus"
)

// episodeRow is what `episode list --json` prints per episode.
type episodeRow = runstatus.Episode

func (a *app) episodeListCmd() *cobra.Command {
	var run, where string
	var asJSON bool
	var filter runstatus.Filter
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List a run's episode workflows from Temporal, filtered by their search attributes and recorded results",
		Long: "List a run's episode workflows from Temporal's visibility store (no Temporal CLI needed), filtered by\n" +
			"--where: comparisons joined by 'and' or ','. On Temporal's search attributes: S, stage, pass, index\n" +
			"(numbers: < <= > >= = !=) and case, condition, kind, status (= or !=). On the results store's record of\n" +
			"a finished episode: diagnosis (~ contains, !~, = one whole diagnosis, !=; case and punctuation ignored),\n" +
			"turns, cost (the encounter's USD), cards (how many were retrieved) as numbers, label (a process label of\n" +
			"any action, e.g. label=critical_error) and card (a retrieved card's ID) with = or !=. A clause that\n" +
			"names a recorded field lists finished episodes only. The IDs are what `episode show` takes.",
		Example: `  clinevo episode list --run quick-E1
  clinevo episode list --run quick-E1 --where 'S<0.5'
  clinevo episode list --run quick-E1 --where 'stage>=3 and condition=angina' --json
  clinevo episode list --run quick-E1 --where 'diagnosis~pneumonia and cost>100'
  clinevo episode list --run quick-E1 --where 'label=critical_error, cards>0'
  clinevo episode list --run quick-H0 --where status=running`,
		Args: cobra.NoArgs,
		PreRunE: func(cmd *cobra.Command, _ []string) (err error) {
			if run == "" {
				return badInput(fmt.Errorf("episode list: --run RUN is required"))
			}
			if err := contract.ValidateRunID(run); err != nil {
				return badInput(fmt.Errorf("episode list: --run: %w", err))
			}
			filter, err = runstatus.ParseWhere(where)
			return badInput(err)
		},
		RunE: a.withClient(func(cmd *cobra.Command, _ []string, c client.Client) error {
			eps, err := runstatus.Episodes(cmd.Context(), c, run, filter.Query())
			if err != nil {
				return err
			}
			if eps, err = a.keepRecorded(cmd.Context(), filter, run, eps); err != nil {
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
	cmd.Flags().StringVar(&where, "where", "", "filter, e.g. 'S<0.5', 'stage=2 and condition=angina', 'diagnosis~pneumonia', 'label=critical_error'")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the episodes as JSON")
	_ = cmd.RegisterFlagCompletionFunc("run", a.completeRuns)
	return cmd
}

// keepRecorded applies the comparisons on recorded fields to eps, reading
// run's records from the results store (none where nothing has run).
func (a *app) keepRecorded(ctx context.Context, f runstatus.Filter, run string, eps []runstatus.Episode) ([]runstatus.Episode, error) {
	if !f.Recorded() {
		return eps, nil
	}
	var recs []results.Record
	err := a.withLookup(ctx, func(store results.Store) (err error) {
		if store != nil {
			recs, err = store.Records(ctx, run)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("episode list: the records of %s: %w", run, err)
	}
	return f.KeepRecorded(eps, recs), nil
}
