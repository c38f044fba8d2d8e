package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/config"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/experiments"
	"github.com/clinevo/clinevo/internal/textfmt"
	"github.com/clinevo/clinevo/progress"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/runstatus"
	"github.com/clinevo/clinevo/settings"
)

// streamFlags are the flags that build a StreamSpec; settings flags bind to
// their configuration keys instead.
type streamFlags struct {
	spec      contract.StreamSpec
	memory    string
	carryFrom string
}

func (a *app) bindStreamFlags(cmd *cobra.Command, f *streamFlags) {
	fl := cmd.Flags()
	fl.StringVar(&f.spec.RunID, "run", "", "run ID (required)")
	fl.StringVar(&f.spec.Corpus, "corpus", "", "corpus: a JSONL file or builtin:<split>[@seed] (default: config corpus)")
	fl.StringSliceVar(&f.spec.CaseIDs, "cases", nil, "case IDs in the order to play (default: the corpus order)")
	fl.IntVar(&f.spec.Limit, "limit", 0, "play only the first N cases")
	fl.IntVar(&f.spec.StageSize, "stage-size", contract.DefaultStageSize, "episodes per stage")
	fl.StringVar(&f.memory, "memory-mode", string(contract.MemoryEmpty), "memory mode: disabled, empty or carry")
	fl.StringVar(&f.memory, "memory", string(contract.MemoryEmpty), "memory mode")
	deprecate(fl, "memory", "memory-mode")
	fl.StringVar(&f.carryFrom, "carry-from", "", "with --memory-mode carry: the finished run whose memory, episode numbering and rule book to continue")
	fl.BoolVar(&f.spec.StageEval, "stage-eval", false, "after each stage, re-play it with memory frozen (A[j][j])")
	fl.StringVar(&f.spec.Retention, "retention", "", "after the last stage, replay earlier stages: final (A[K][j]) or matrix (A[k][j])")
	fl.IntVar(&f.spec.ActivityTimeoutSeconds, "activity-timeout", contract.DefaultActivityTimeout, "activity start-to-close timeout in seconds")
	fl.String("profile", "", a.profileHelp())
	config.BindKey(fl, "profile", "profile")
	fl.Int("update-interval", 0, "evolve after every N episodes (default: evolver.update_interval)")
	config.BindKey(fl, "update-interval", "evolver.update_interval")
	fl.Int("rule-budget", 0, "B_P; 0 keeps no rule book (default: evolver.rule_budget)")
	config.BindKey(fl, "rule-budget", "evolver.rule_budget")
}

// buildSpec fills a spec from flags and configuration and validates it,
// corpus and case IDs included, before anything starts. A carry run takes its
// lineage from the finished run it continues.
func (a *app) buildSpec(cmd *cobra.Command, f *streamFlags) (contract.StreamSpec, error) {
	s := f.spec
	if s.RunID != "" {
		if err := contract.ValidateRunID(s.RunID); err != nil {
			return s, fmt.Errorf("stream start: --run: %w", err)
		}
	}
	// The flags take the ranges of the spec keys they set.
	for _, n := range []struct {
		flag string
		v    int
		r    settings.Range
	}{{"--limit", s.Limit, contract.LimitRange}, {"--stage-size", s.StageSize, contract.StageSizeRange},
		{"--activity-timeout", s.ActivityTimeoutSeconds, contract.ActivityTimeoutRange}} {
		if err := n.r.Check(n.flag, n.v); err != nil {
			return s, fmt.Errorf("stream start: %w", err)
		}
	}
	if s.Corpus == "" {
		s.Corpus = a.cfg.Corpus
	}
	s.Memory = contract.MemoryMode(f.memory)
	s.Settings = a.cfg.Settings
	s, err := a.carry(cmd, s, f.carryFrom)
	if err != nil {
		return s, err
	}
	return experiments.Stream(a.lib, a.set, s)
}

// carry continues the finished run from in spec s, with --memory-mode carry;
// the two flags go together.
func (a *app) carry(cmd *cobra.Command, s contract.StreamSpec, from string) (contract.StreamSpec, error) {
	switch {
	case s.Memory == contract.MemoryCarry && from == "":
		return s, errors.New("stream start: --memory-mode carry needs --carry-from RUN (a finished stream)")
	case s.Memory != contract.MemoryCarry && from != "":
		return s, errors.New("stream start: --carry-from needs --memory-mode carry")
	case s.Memory != contract.MemoryCarry:
		return s, nil
	}
	err := a.withLookup(cmd.Context(), func(store results.Store) error {
		if store == nil {
			return fmt.Errorf("carry from %s: the run has not finished: nothing has run with data_dir %s", from, a.cfg.DataDir)
		}
		var err error
		s, err = engine.CarryFrom(cmd.Context(), store, s, from)
		return err
	})
	return s, err
}

func (a *app) streamCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "stream", Short: "Start and steer streams of episodes"}
	cmd.AddCommand(a.streamStartCmd(), a.steerCmd(contract.UpdatePause, "Pause a stream before its next episode"),
		a.streamResumeCmd(), a.steerCmd(contract.UpdateStop, "Stop a stream after the current episode"),
		a.streamRestartCmd(), a.streamSizeCmd(), a.streamTimingCmd(), a.streamStatusCmd(),
		a.terminateCmd(contract.KindStream, "RUN", "stream", "a stream and the episodes and evaluations it runs"))
	return cmd
}

func (a *app) streamStartCmd() *cobra.Command {
	var f streamFlags
	var wait waitFlags
	var s contract.StreamSpec
	cmd := &cobra.Command{
		Use:   "start",
		Short: "Validate and start a stream (workflow ID <run>/stream)",
		PreRunE: func(cmd *cobra.Command, _ []string) (err error) {
			s, err = a.buildSpec(cmd, &f) // before Temporal is dialled: bad input is found without it
			return badInput(err)
		},
		RunE: a.withClient(func(cmd *cobra.Command, _ []string, c client.Client) error {
			var run client.WorkflowRun
			if err := a.withLookup(cmd.Context(), func(store results.Store) (err error) {
				run, err = engine.StartStream(cmd.Context(), c, store, a.cfg.Temporal.TaskQueue, s)
				return err
			}); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "started stream %s: workflow %s (run %s)\n", s.RunID, run.GetID(), run.GetRunID())
			return a.waitStream(cmd, c, run, s.RunID, wait)
		}),
	}
	a.bindStreamFlags(cmd, &f)
	wait.bind(cmd, "stream")
	return cmd
}

// steerCmd is a command that sends a stream an update without arguments
// (pause, stop) and prints its answer.
func (a *app) steerCmd(name, short string) *cobra.Command {
	return &cobra.Command{
		Use: name + " RUN", Short: short, Long: short + ".\n" + steerHelp, Args: runArg,
		RunE: a.withClient(func(cmd *cobra.Command, args []string, c client.Client) error {
			return steer(cmd, c, args[0], name, nil)
		}),
	}
}

// steerHelp is what every steering command's help says about its answer.
var steerHelp = "The stream answers with its status after the change (running, paused, stopping) and the caps in force,\n" +
	"or refuses what cannot apply in its state and says why (exit status 2, nothing changed). A stream whose\n" +
	"worker is older than updates, or that no worker takes within " + engine.SteerWait.String() + ", gets the signal of the same name\n" +
	"instead, unchecked, and the command says so."

// steer sends the update and prints the stream's answer (engine.Steer); a
// refusal is bad input.
func steer(cmd *cobra.Command, c client.Client, run, name string, budget *settings.Budget) error {
	s, err := engine.Steer(cmd.Context(), c, run, name, budget)
	if errors.Is(err, engine.ErrRefused) {
		return badInput(err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(cmd.OutOrStdout(), s)
	return nil
}

// streamResumeCmd resumes a paused stream; with --raise-budget it gives the
// stream a new budget instead (UpdateRaiseBudget), and the stream goes on
// when its spend is below it.
func (a *app) streamResumeCmd() *cobra.Command {
	var raise bool
	var b settings.Budget
	cmd := &cobra.Command{
		Use: "resume RUN", Short: "Resume a paused stream", Long: "Resume a paused stream, or with --raise-budget give it a new budget.\n" + steerHelp,
		Args: runArg,
		RunE: a.withClient(func(cmd *cobra.Command, args []string, c client.Client) error {
			if !raise {
				return steer(cmd, c, args[0], contract.UpdateResume, nil)
			}
			return steer(cmd, c, args[0], contract.UpdateRaiseBudget, &b)
		}),
	}
	cmd.Flags().BoolVar(&raise, "raise-budget", false, "give a stream its spend cap paused (status paused: budget; paused: experiment budget raises the experiment's cap for this stream) a new budget, --budget-usd and --budget-tokens (0: no cap), and go on")
	cmd.Flags().Float64Var(&b.USD, "budget-usd", 0, "with --raise-budget: the run's new cap of model spend in USD (0: none)")
	cmd.Flags().IntVar(&b.Tokens, "budget-tokens", 0, "with --raise-budget: the run's new cap in tokens (0: none)")
	return cmd
}

func (a *app) streamStatusCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status RUN",
		Short: "Show a stream's status, progress, running means and rule book",
		Long: "Show a stream's status (" + statusList + "), its progress (episodes, stage of stages), its means\n" +
			"overall and in the current stage, what it waits for, and its rule book. A finished stream shows its result.\n" +
			"Model endpoints with a limiter (roles.<role>.concurrency, rpm or tpm) show their limit of calls in flight\n" +
			"(the latest reading), the calls answered 429 and the time calls waited, from the results store.",
		Example: `  clinevo stream status r1
  clinevo stream status r1 --json | jq .progress.overall.s`,
		Args:              runArg,
		ValidArgsFunction: a.completeRuns,
		RunE: a.withClient(func(cmd *cobra.Command, args []string, c client.Client) error {
			st, err := engine.StreamStatus(cmd.Context(), c, engine.Configured(a.cfg, true), args[0])
			if err != nil {
				return err
			}
			return output(cmd, asJSON, st, func(w io.Writer) error { return runstatus.WriteStream(w, args[0], st, a.definesU(st.Benchmark)) })
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the status as JSON")
	return cmd
}

// definesU says whether benchmark profile scores U (bench.ShowsU: a
// profile this build does not have shows none).
func (a *app) definesU(profile string) bool {
	b, _ := a.set.Get(profile)
	return bench.ShowsU(b)
}

// statusList is the help's list of statuses.
var statusList = strings.Join(runstatus.Statuses, ", ")

// runArg checks a command's one RUN argument: a run ID.
func runArg(cmd *cobra.Command, args []string) error {
	if err := cobra.ExactArgs(1)(cmd, args); err != nil {
		return err
	}
	if err := contract.ValidateRunID(args[0]); err != nil {
		return fmt.Errorf("%s: %s: %w", strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" "), strings.Fields(cmd.Use)[1], err)
	}
	return nil
}

func (a *app) streamRestartCmd() *cobra.Command {
	var wait waitFlags
	cmd := &cobra.Command{
		Use:   "restart RUN",
		Short: "Start a failed, terminated or timed-out stream again from its last completed episode",
		Args:  runArg,
		RunE: a.withClient(func(cmd *cobra.Command, args []string, c client.Client) error {
			eng, err := a.openReader(cmd.Context())
			if err != nil {
				return err
			}
			run, spec, err := engine.RestartStream(cmd.Context(), c, eng.Results, a.cfg.Temporal.TaskQueue, args[0])
			eng.Close()
			if err != nil {
				return err
			}
			st := spec.State
			fmt.Fprintf(cmd.OutOrStdout(), "restarted stream %s after episode %d (%d stages ended): workflow %s (run %s)\n",
				spec.RunID, st.Cursor, len(st.StageEnds), run.GetID(), run.GetRunID())
			return a.waitStream(cmd, c, run, spec.RunID, wait)
		}),
	}
	wait.bind(cmd, "stream")
	return cmd
}

func printJSON(cmd *cobra.Command, v any) error { return textfmt.JSON(cmd.OutOrStdout(), v) }

// waitFlags are the flags of a command that can wait for what it started.
type waitFlags struct {
	wait, json bool
}

func (w *waitFlags) bind(cmd *cobra.Command, what string) {
	cmd.Flags().BoolVar(&w.wait, "wait", false, "wait for the "+what+" to finish, showing its progress on stderr, then print a summary")
	cmd.Flags().BoolVar(&w.json, "json", false, "with --wait: print the result as JSON instead of the summary")
}

// waitStream waits for a started stream when asked to, showing its
// progress on stderr, and prints its status (or, with --json, its result).
func (a *app) waitStream(cmd *cobra.Command, c client.Client, run client.WorkflowRun, runID string, w waitFlags) error {
	if !w.wait {
		return nil
	}
	return a.waitOutput(cmd, w).Stream(cmd.Context(), c, run, runID)
}

// waitOutput is where a command that waits writes.
func (a *app) waitOutput(cmd *cobra.Command, w waitFlags) progress.Output {
	return progress.Output{Out: cmd.OutOrStdout(), Progress: cmd.ErrOrStderr(), JSON: w.json, ShowsU: a.definesU}
}
