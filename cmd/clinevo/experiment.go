package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/experiments"
	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/recorded"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/runstatus"
)

// loadExperiment reads an experiment file with this configuration's settings as its base.
func (a *app) loadExperiment(path string) (contract.ExperimentSpec, error) {
	spec, err := experiments.Load(path, a.cfg.Settings, a.set)
	return spec, badInput(err)
}

func (a *app) experimentCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "experiment", Short: "Run, follow and resume experiments (a named set of conditions)"}
	cmd.AddCommand(a.experimentRunCmd(), a.experimentValidateCmd(), a.experimentStatusCmd(), a.experimentResumeCmd(), a.rescoreCmd(),
		a.experimentPlanCmd(), a.experimentRaiseBudgetCmd(),
		a.terminateCmd(contract.KindExperiment, "NAME", "experiment", "an experiment and every condition it runs"))
	return cmd
}

func (a *app) experimentRunCmd() *cobra.Command {
	var wait waitFlags
	var spec contract.ExperimentSpec
	cmd := &cobra.Command{
		Use:   "run FILE",
		Short: "Validate an experiment spec and start it (workflow ID <name>/experiment)",
		Args:  cobra.ExactArgs(1),
		PreRunE: func(_ *cobra.Command, args []string) (err error) {
			spec, err = a.loadExperiment(args[0]) // before Temporal is dialled: bad input is found without it
			return err
		},
		RunE: a.withClient(func(cmd *cobra.Command, _ []string, c client.Client) error {
			var r client.WorkflowRun
			if err := a.withLookup(cmd.Context(), func(store results.Store) (err error) {
				r, err = engine.StartExperiment(cmd.Context(), c, store, a.cfg.Temporal.TaskQueue, spec)
				return err
			}); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "started experiment %s: workflow %s\n", spec.Name, r.GetID())
			return a.waitExperiment(cmd, c, r, spec.Name, wait)
		}),
	}
	wait.bind(cmd, "experiment")
	return cmd
}

func (a *app) experimentValidateCmd() *cobra.Command {
	var asJSON, checkRoles bool
	cmd := &cobra.Command{
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
			if err := a.printConditions(cmd, spec, asJSON); err != nil || !checkRoles {
				return err
			}
			conds, err := llm.ConditionsOf(spec, a.set)
			if err != nil {
				return err
			}
			return printRoleChecks(cmd, conds, false)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the conditions with their resolved settings as JSON")
	cmd.Flags().BoolVar(&checkRoles, "check-roles", false, "also preflight every model role of every condition (roles check)")
	return cmd
}

// printConditions prints a valid spec's conditions with their settings.
func (a *app) printConditions(cmd *cobra.Command, spec contract.ExperimentSpec, asJSON bool) error {
	if asJSON {
		r, err := experiments.Resolve(spec)
		if err != nil {
			return badInput(err)
		}
		return printJSON(cmd, r)
	}
	return experiments.WriteConditions(cmd.OutOrStdout(), spec, a.set)
}

func (a *app) experimentStatusCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status NAME",
		Short: "The experiment's status and every condition's: progress while it runs, results once it finished",
		Long: "The experiment's status and every condition's (" + statusList + "): episodes done of planned,\n" +
			"the stage, the means so far (a held-out condition's once it finished), and what anything waits for;\n" +
			"then its plan beside its use so far (as experiment plan prints it): episodes and wall time per condition,\n" +
			"model calls, input and output tokens and model USD per role.",
		Example: `  clinevo experiment status quick
  clinevo experiment status quick --json`,
		Args: runArg,
		RunE: a.withClient(func(cmd *cobra.Command, args []string, c client.Client) error {
			ex, err := engine.ExperimentStatus(cmd.Context(), c, engine.Configured(a.cfg, true), a.set, args[0])
			if err != nil {
				return err
			}
			return output(cmd, asJSON, ex, func(w io.Writer) error { return runstatus.WriteExperiment(w, ex, a.definesU) })
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the status as JSON")
	return cmd
}

func (a *app) experimentResumeCmd() *cobra.Command {
	var file string
	cmd := &cobra.Command{
		Use:   "resume NAME",
		Short: "Start a failed, terminated or timed-out experiment again: finished conditions are reused, started streams continue from their last completed episode",
		Args:  runArg,
		RunE: a.withClient(func(cmd *cobra.Command, args []string, c client.Client) error {
			eng, err := a.openReader(cmd.Context())
			if err != nil {
				return err
			}
			defer eng.Close()
			spec, err := recorded.ResumeSpec(cmd.Context(), eng.Results, args[0], eng.DataDir(), file, a.loadExperiment)
			if err != nil {
				return err
			}
			r, err := engine.ResumeExperiment(cmd.Context(), c, eng.Results, a.cfg.Temporal.TaskQueue, spec)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "resumed experiment %s: workflow %s (run %s)\n", args[0], r.GetID(), r.GetRunID())
			return nil
		}),
	}
	cmd.Flags().StringVar(&file, "file", "", "the spec file (default: the spec the experiment recorded)")
	return cmd
}

// waitExperiment waits for a started experiment when asked to, showing each
// condition's progress on stderr, and prints every condition's status and
// results (or, with --json, the experiment's result).
func (a *app) waitExperiment(cmd *cobra.Command, c client.Client, r client.WorkflowRun, name string, w waitFlags) error {
	if !w.wait {
		return nil
	}
	return a.waitOutput(cmd, w).Experiment(cmd.Context(), c, r, name)
}

func (a *app) rescoreCmd() *cobra.Command {
	var variant string
	cmd := &cobra.Command{
		Use:   "rescore NAME",
		Short: "Re-score a finished experiment's held-out baseline conditions under the configured roles.judge, without replaying them, into runs NAME-<condition>@<variant> that its report compares",
		Args:  cobra.ExactArgs(1),
		RunE: a.withEngine(false, func(cmd *cobra.Command, args []string, eng *engine.Engine) error {
			return eng.Rescore(cmd.Context(), args[0], a.cfg.Settings.Roles["judge"], variant, cmd.OutOrStdout())
		}),
	}
	cmd.Flags().StringVar(&variant, "variant", "", "the variant's name, e.g. judge-b (required)")
	_ = cmd.MarkFlagRequired("variant")
	return cmd
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
		RunE: a.withEngine(true, func(cmd *cobra.Command, args []string, eng *engine.Engine) error {
			if out == "" {
				out = filepath.Join(a.cfg.DataDir, "reports", args[0])
			}
			return recorded.WriteReport(cmd.Context(), cmd.OutOrStdout(), eng.Results, a.set, args[0], out)
		}),
	}
	cmd.Flags().StringVar(&out, "out", "", "output directory (default: <data_dir>/reports/NAME)")
	return cmd
}
