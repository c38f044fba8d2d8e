package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/experiments"
	"github.com/clinevo/clinevo/rescore"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/runstatus"
	"github.com/clinevo/clinevo/settings"
)

// loadExperiment reads an experiment file with this configuration's settings as its base.
func (a *app) loadExperiment(path string) (contract.ExperimentSpec, error) {
	spec, err := experiments.Load(path, a.cfg.Settings, a.set)
	return spec, badInput(err)
}

func (a *app) experimentCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "experiment", Short: "Run, follow and resume experiments (a named set of conditions)"}
	var wait waitFlags
	run := &cobra.Command{
		Use:   "run FILE",
		Short: "Validate an experiment spec and start it (workflow ID <name>/experiment)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			spec, err := a.loadExperiment(args[0])
			if err != nil {
				return err
			}
			c, err := a.dial(a.cfg.Temporal)
			if err != nil {
				return err
			}
			defer c.Close()
			var r client.WorkflowRun
			if err := a.withLookup(cmd.Context(), func(store results.RunLog) error {
				r, err = engine.StartExperiment(cmd.Context(), c, store, a.cfg.Temporal.TaskQueue, spec)
				return err
			}); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "started experiment %s: workflow %s\n", spec.Name, r.GetID())
			return a.waitExperiment(cmd, c, r, spec.Name, wait)
		},
	}
	wait.bind(run, "experiment")
	cmd.AddCommand(run)
	var validJSON bool
	validate := &cobra.Command{
		Use:   "validate FILE",
		Short: "Parse and check an experiment spec without starting it: fields, settings keys, dependencies, corpora",
		Example: `  clinevo experiment validate experiments/quick.yaml
  clinevo experiment validate my-experiment.yaml --json | jq '.conditions[].settings.profile'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			spec, err := a.loadExperiment(args[0])
			if err != nil {
				return err
			}
			if validJSON {
				type condition struct {
					contract.ConditionSpec
					Settings settings.Settings `json:"settings"`
				}
				conds := make([]condition, len(spec.Conditions))
				for i, c := range spec.Conditions {
					s, err := spec.SettingsOf(i)
					if err != nil {
						return badInput(err)
					}
					conds[i] = condition{c, s}
				}
				return printJSON(cmd, map[string]any{"experiment": spec.Name, "valid": true, "conditions": conds})
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 2, 2, ' ', 0)
			fmt.Fprintf(tw, "experiment %s: %d conditions, valid\n", spec.Name, len(spec.Conditions))
			fmt.Fprintln(tw, "CONDITION\tKIND\tPROFILE\tMEMORY\tDEPENDS ON\tBUDGETS\tMODE\tFEEDBACK\tMETHOD\tB_P\tB_M\tK\tCARDS\tDOCTOR")
			for i, c := range spec.Conditions {
				s, err := spec.SettingsOf(i)
				if err != nil {
					return err
				}
				doctor := "builtin"
				if r := s.Roles["doctor"]; r.Backend == settings.OpenAI {
					doctor = r.Model
				}
				mem := string(c.Memory)
				if c.Kind == contract.KindHeldOut {
					mem = "frozen"
				}
				b, err := a.set.Of(s)
				if err != nil {
					return fmt.Errorf("conditions[%d] (%s): %w", i, c.Name, err)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%s\t%s\n", c.Name, c.Kind, s.Profile, orDefault(mem, "-"),
					orDefault(c.Dependency(), "-"), bench.Budgets(b, s), s.Episode.Mode, s.Evolver.Mode, s.Evolver.MethodName(),
					s.Evolver.RuleBudget, s.Evolver.MemoryBudget, s.Memory.K, strings.Join(s.Evolver.CardKinds, ","), doctor)
			}
			return tw.Flush()
		},
	}
	validate.Flags().BoolVar(&validJSON, "json", false, "print the conditions with their resolved settings as JSON")
	cmd.AddCommand(validate)
	var statusJSON bool
	status := &cobra.Command{
		Use:   "status NAME",
		Short: "The experiment's status and every condition's: progress while it runs, results once it finished",
		Long: "The experiment's status and every condition's (" + statusList + "): episodes done of planned,\n" +
			"the stage, the means so far (a held-out condition's once it finished), and what anything waits for;\n" +
			"then its plan beside its use so far (as experiment plan prints it): episodes and wall time per condition,\n" +
			"model calls, input and output tokens and USD per role.",
		Example: `  clinevo experiment status quick
  clinevo experiment status quick --json`,
		Args: runArg,
		RunE: a.withClient(func(cmd *cobra.Command, args []string, c client.Client) error {
			ex, err := runstatus.ExperimentOf(cmd.Context(), c, args[0])
			if err != nil {
				return err
			}
			if err := a.withLookupStore(cmd.Context(), func(store results.Store) error {
				recs, err := store.Records(cmd.Context(), "")
				ex.AddUse(a.set, recs)
				return err
			}); err != nil {
				ex.PlanError = err.Error() // the status is Temporal's; without the store only the plan is missing
			}
			if statusJSON {
				return printJSON(cmd, ex)
			}
			return writeExperimentStatus(cmd.OutOrStdout(), a.set, ex)
		}),
	}
	status.Flags().BoolVar(&statusJSON, "json", false, "print the status as JSON")
	cmd.AddCommand(status)
	var file string
	resume := &cobra.Command{
		Use:   "resume NAME",
		Short: "Start a failed, terminated or timed-out experiment again: finished conditions are reused, started streams continue from their last completed episode",
		Args:  runArg,
		RunE: a.withClient(func(cmd *cobra.Command, args []string, c client.Client) error {
			eng, err := a.openReader(cmd.Context())
			if err != nil {
				return err
			}
			defer eng.Close()
			var spec contract.ExperimentSpec
			if file != "" {
				spec, err = a.loadExperiment(file)
			} else {
				spec, err = storedExperiment(cmd.Context(), eng, args[0])
			}
			if err != nil {
				return err
			}
			if spec.Name != args[0] {
				return fmt.Errorf("experiment resume %s: %s names experiment %s", args[0], file, spec.Name)
			}
			r, err := engine.ResumeExperiment(cmd.Context(), c, eng.Results, a.cfg.Temporal.TaskQueue, spec)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "resumed experiment %s: workflow %s (run %s)\n", args[0], r.GetID(), r.GetRunID())
			return nil
		}),
	}
	resume.Flags().StringVar(&file, "file", "", "the spec file (default: the spec the experiment recorded)")
	cmd.AddCommand(resume, a.rescoreCmd())
	return cmd
}

// waitExperiment waits for a started experiment when asked to, showing each
// condition's progress on stderr, and prints every condition's status and
// results (or, with --json, the experiment's result).
func (a *app) waitExperiment(cmd *cobra.Command, c client.Client, r client.WorkflowRun, name string, w waitFlags) error {
	if !w.wait {
		return nil
	}
	if err := follow(cmd.Context(), cmd.ErrOrStderr(), r, experimentRows(c, name)); err != nil {
		return err
	}
	if w.json {
		var res contract.ExperimentResult
		if err := r.Get(cmd.Context(), &res); err != nil {
			return err
		}
		return printJSON(cmd, res)
	}
	ex, err := runstatus.ExperimentOf(cmd.Context(), c, name)
	if err != nil {
		return err
	}
	return writeExperimentStatus(cmd.OutOrStdout(), a.set, ex)
}

func (a *app) rescoreCmd() *cobra.Command {
	var variant string
	cmd := &cobra.Command{
		Use:   "rescore NAME",
		Short: "Re-score a finished experiment's held-out baseline conditions under the configured roles.judge, without replaying them, into runs NAME-<condition>@<variant> that its report compares",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			eng, err := a.openEngine(cmd.Context())
			if err != nil {
				return err
			}
			defer eng.Close()
			spec, err := storedExperiment(cmd.Context(), eng, args[0])
			if err != nil {
				return err
			}
			sums, err := rescore.Experiment(cmd.Context(), eng.Results, a.set, spec, a.cfg.Settings.Roles["judge"], variant, eng.Roles)
			for _, s := range sums {
				fmt.Fprintf(cmd.OutOrStdout(), "%s -> %s: %d episodes, mean S %.3f -> %.3f\n", s.Source, s.Run, s.Episodes, s.Before, s.After)
			}
			return err
		},
	}
	cmd.Flags().StringVar(&variant, "variant", "", "the variant's name, e.g. judge-b (required)")
	_ = cmd.MarkFlagRequired("variant")
	return cmd
}

func storedExperiment(ctx context.Context, eng *engine.Engine, name string) (contract.ExperimentSpec, error) {
	runs, _, err := eng.Results.Runs(ctx)
	if err != nil {
		return contract.ExperimentSpec{}, err
	}
	for _, r := range runs {
		if r.Run == name && r.Kind == string(contract.KindExperiment) {
			var spec contract.ExperimentSpec
			return spec, json.Unmarshal(r.Spec, &spec)
		}
	}
	return contract.ExperimentSpec{}, fmt.Errorf("experiment %q is not in %s (pass --file)", name, eng.DataDir())
}

// buildReport gathers an experiment's results and writes its report.
func buildReport(ctx context.Context, eng *engine.Engine, name, dir string) (analysis.Report, error) {
	in, err := analysis.Load(ctx, eng.Results, eng.Benchmarks, name)
	if err != nil {
		return analysis.Report{}, err
	}
	rep := analysis.Build(in)
	return rep, analysis.Write(dir, rep, analysis.StoreTraces(ctx, eng.Results))
}

func (a *app) reportCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "report EXPERIMENT|STREAM",
		Short: "Write the report of an experiment or of one finished stream: HTML with charts, CSV and JSON of every number, trajectory JSONL",
		Long: "Write the report of an experiment or of one finished (or stopped) stream: HTML with charts, CSV and JSON\n" +
			"of every number, trajectory JSONL. A stream's report is one condition, named by its run: stage means,\n" +
			"trend, running means, learning gain and, where it evaluated its stages, the retention matrix and BWT.\n" +
			"Without --out it goes to <data_dir>/reports/NAME.",
		Example: `  clinevo report quick
  clinevo report quick --out /tmp/quick-report
  clinevo report r1                      # one stream, by its run ID`,
		Args: runArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				out = filepath.Join(a.cfg.DataDir, "reports", args[0])
			}
			eng, err := a.openReader(cmd.Context())
			if err != nil {
				return err
			}
			defer eng.Close()
			stream, err := isStream(cmd.Context(), eng.Results, args[0])
			if err != nil {
				return err
			}
			build := buildReport
			if stream {
				build = buildStreamReport
			}
			rep, err := build(cmd.Context(), eng, args[0], out)
			if err != nil {
				return err
			}
			writeSummary(cmd.OutOrStdout(), rep)
			fmt.Fprintf(cmd.OutOrStdout(), "report: %s\n", filepath.Join(out, "index.html"))
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "output directory (default: <data_dir>/reports/NAME)")
	return cmd
}

// isStream reports whether name is a stream run in the results store.
func isStream(ctx context.Context, store results.RunLog, name string) (bool, error) {
	runs, _, err := store.Runs(ctx)
	if err != nil {
		return false, err
	}
	for _, r := range runs {
		if r.Run == name && r.Kind == string(contract.KindStream) {
			return true, nil
		}
	}
	return false, nil
}

// buildStreamReport gathers one stream's results and writes its report.
func buildStreamReport(ctx context.Context, eng *engine.Engine, run, dir string) (analysis.Report, error) {
	in, err := analysis.LoadStream(ctx, eng.Results, eng.Benchmarks, run, corpus.NewLibrary(eng.Benchmarks).Load)
	if err != nil {
		return analysis.Report{}, err
	}
	rep := analysis.Build(in)
	return rep, analysis.Write(dir, rep, analysis.StoreTraces(ctx, eng.Results))
}

// writeSummary prints the headline numbers of a report.
func writeSummary(w io.Writer, rep analysis.Report) {
	for _, c := range rep.Conditions {
		late := "–"
		if n := len(c.Stages); n > 0 {
			late = fmt.Sprintf("%.3f", c.Stages[n-1].S)
		}
		u := "–" // only MedEvoEval defines U
		if c.DefinesU() {
			u = fmt.Sprintf("%.3f", c.Overall.U)
		}
		fmt.Fprintf(w, "%-4s %-8s n=%-4d S=%.3f strict=%.2f U=%s last-stage S=%s\n", c.Name, c.Kind, c.Overall.N, c.Overall.S, c.Overall.Strict, u, late)
	}
	writeEncounters(w, rep)
	for _, t := range rep.Transfer {
		fmt.Fprintf(w, "ET(S) %s vs %s = %+.3f  [%.3f, %.3f]  Wilcoxon p %s  (n=%d)\n", t.Name, t.Baseline, t.ETS, t.CI.Low, t.CI.High, analysis.PEquals(t.Wilcoxon.P), t.N)
	}
	for _, r := range rep.Retention {
		fmt.Fprintf(w, "BWT %s: S %s, U %s\n", r.Name, optf(r.BWTS), optf(r.BWTU))
	}
	for _, f := range rep.Frontiers {
		fmt.Fprintln(w, strings.Join(f.Lines(), "\n"))
	}
	for _, line := range rep.Summary {
		fmt.Fprintln(w, line)
	}
}

// writeEncounters prints each condition's recall/transfer split: a stream's
// first encounters against its seen-before episodes, a held-out condition's
// episodes by whether their opening, and their condition, was met in the
// memory lineage named at the end.
func writeEncounters(w io.Writer, rep analysis.Report) {
	side := func(label string, m analysis.StageMean) string {
		if m.N == 0 {
			return label + " n=0"
		}
		return fmt.Sprintf("%s n=%d S=%.3f", label, m.N, m.S)
	}
	for _, c := range rep.Conditions {
		e := c.Encounters
		switch {
		case e == nil:
		case c.Kind == string(contract.KindStream):
			fmt.Fprintf(w, "%-4s %s | %s\n", c.Name, side("first encounter", e.Condition.New), side("seen before", e.Condition.Seen))
		default:
			var opening string
			if o := e.Opening; o != nil {
				opening = side("opening seen", o.Seen) + " | " + side("new", o.New) + "; "
			}
			fmt.Fprintf(w, "%-4s %s%s | %s  (lineage %s)\n", c.Name, opening, side("condition seen", e.Condition.Seen), side("new", e.Condition.New),
				strings.Join(e.Lineage, " "))
		}
	}
}

func optf(p *float64) string {
	if p == nil {
		return "–"
	}
	return fmt.Sprintf("%+.3f", *p)
}
