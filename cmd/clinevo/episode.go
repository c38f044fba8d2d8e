package main

import (
	"cmp"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/config"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/runner"
)

func (a *app) episodeCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "episode", Short: "Run or inspect single episodes"}
	cmd.AddCommand(a.episodeRunCmd(), a.episodeShowCmd(), a.episodeListCmd(), a.historyCmd())
	return cmd
}

func (a *app) episodeRunCmd() *cobra.Command {
	var caseID, corpusRef, tracePath string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run one episode in process with the configured roles and profile, and print its trace",
		RunE: func(cmd *cobra.Command, _ []string) error {
			cs, err := a.caseOf(corpusRef, caseID)
			if err != nil {
				return badInput(err)
			}
			b, err := a.set.Of(a.cfg.Settings)
			if err != nil {
				return err
			}
			t, err := engine.PlayCase(cmd.Context(), a.cfg.Settings, b, cs, llm.Options{RecordPrompts: a.cfg.Telemetry.PromptText})
			if err != nil {
				return err
			}
			if tracePath != "" {
				if err := runner.WriteTraces(tracePath, []clinic.Trace{t}); err != nil {
					return err
				}
			}
			if asJSON {
				return printJSON(cmd, t)
			}
			fmt.Fprint(cmd.OutOrStdout(), runner.Format(t, b))
			return nil
		},
	}
	cmd.Flags().StringVar(&caseID, "case", "", "case ID (required)")
	cmd.Flags().StringVar(&corpusRef, "corpus", "", "corpus: a JSONL file or builtin:<split>[@seed] (default: config corpus)")
	cmd.Flags().StringVar(&tracePath, "trace", "", "also write the trace as JSONL to this file")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the trace as JSON")
	cmd.Flags().String("profile", "", a.profileHelp())
	config.BindKey(cmd.Flags(), "profile", "profile")
	_ = cmd.MarkFlagRequired("case")
	return cmd
}

// caseOf is case id of corpus ref (empty: the configured corpus).
func (a *app) caseOf(ref, id string) (clinic.Case, error) {
	ref = cmp.Or(ref, a.cfg.Corpus)
	c, err := a.lib.Load(ref)
	if err != nil {
		return clinic.Case{}, err
	}
	cs, ok := c.Case(id)
	if !ok {
		return clinic.Case{}, fmt.Errorf("episode run: case %q is not in corpus %s", id, ref)
	}
	return cs, nil
}
