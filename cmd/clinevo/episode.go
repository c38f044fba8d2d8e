package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/runner"
)

func (a *app) episodeCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "episode", Short: "Run or inspect single episodes"}
	var caseID, corpusRef, tracePath string
	var asJSON bool
	run := &cobra.Command{
		Use:   "run",
		Short: "Run one episode in process with the configured roles and profile, and print its trace",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if corpusRef == "" {
				corpusRef = a.cfg.Corpus
			}
			c, err := a.lib.Load(corpusRef)
			if err != nil {
				return badInput(err)
			}
			cs, ok := c.Case(caseID)
			if !ok {
				return badInput(fmt.Errorf("episode run: case %q is not in corpus %s", caseID, corpusRef))
			}
			b, err := a.set.Of(a.cfg.Settings)
			if err != nil {
				return err
			}
			roles, err := engine.RolesFor(a.cfg.Settings, llm.Options{RecordPrompts: a.cfg.Telemetry.PromptText})
			if err != nil {
				return err
			}
			d := runner.Deps{Bench: b, Roles: roles, Settings: a.cfg.Settings}
			t, err := runner.Play(cmd.Context(), cs, d, runner.Meta{RunID: "adhoc", EpisodeID: "adhoc/" + caseID, Number: 1, Pass: 1})
			if err != nil {
				return err
			}
			if tracePath != "" {
				if err := runner.WriteTraces(tracePath, []clinic.Trace{t}); err != nil {
					return err
				}
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(t)
			}
			fmt.Fprint(cmd.OutOrStdout(), runner.Format(t, b))
			return nil
		},
	}
	run.Flags().StringVar(&caseID, "case", "", "case ID (required)")
	run.Flags().StringVar(&corpusRef, "corpus", "", "corpus: a JSONL file or builtin:<split>[@seed] (default: config corpus)")
	run.Flags().StringVar(&tracePath, "trace", "", "also write the trace as JSONL to this file")
	run.Flags().BoolVar(&asJSON, "json", false, "print the trace as JSON")
	run.Flags().String("profile", "", a.profileHelp())
	bindKey(run.Flags(), "profile", "profile")
	_ = run.MarkFlagRequired("case")
	cmd.AddCommand(run, a.episodeShowCmd(), a.episodeListCmd(), a.historyCmd())
	return cmd
}
