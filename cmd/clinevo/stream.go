package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/engine"
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
	fl.String("profile", "", profileHelp())
	bindKey(fl, "profile", "profile")
	fl.Int("update-interval", 0, "evolve after every N episodes (default: evolver.update_interval)")
	bindKey(fl, "update-interval", "evolver.update_interval")
	fl.Int("rule-budget", 0, "B_P; 0 keeps no rule book (default: evolver.rule_budget)")
	bindKey(fl, "rule-budget", "evolver.rule_budget")
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
	switch {
	case s.Memory == contract.MemoryCarry && f.carryFrom == "":
		return s, errors.New("stream start: --memory-mode carry needs --carry-from RUN (a finished stream)")
	case s.Memory != contract.MemoryCarry && f.carryFrom != "":
		return s, errors.New("stream start: --carry-from needs --memory-mode carry")
	case s.Memory == contract.MemoryCarry:
		if err := a.withLookup(cmd.Context(), func(store results.RunLog) error {
			if store == nil {
				return fmt.Errorf("carry from %s: the run has not finished: nothing has run with data_dir %s", f.carryFrom, a.cfg.DataDir)
			}
			var err error
			s, err = engine.CarryFrom(cmd.Context(), store, s, f.carryFrom)
			return err
		}); err != nil {
			return s, err
		}
	}
	s = s.WithDefaults()
	if err := s.Validate(); err != nil {
		return s, err
	}
	if err := bench.ValidateSettings(s.Settings); err != nil {
		return s, fmt.Errorf("stream %s: settings: %w", s.RunID, err)
	}
	cp, err := corpus.Load(s.Corpus)
	if err != nil {
		return s, err
	}
	for _, id := range s.CaseIDs {
		if _, ok := cp.Case(id); !ok {
			return s, fmt.Errorf("stream %s: case %q is not in corpus %s", s.RunID, id, s.Corpus)
		}
	}
	return s, nil
}

func (a *app) streamCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "stream", Short: "Start and steer streams of episodes"}
	var f streamFlags
	var wait waitFlags
	start := &cobra.Command{
		Use:   "start",
		Short: "Validate and start a stream (workflow ID <run>/stream)",
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := a.buildSpec(cmd, &f)
			if err != nil {
				return badInput(err)
			}
			c, err := a.dial(a.cfg.Temporal)
			if err != nil {
				return err
			}
			defer c.Close()
			var run client.WorkflowRun
			if err := a.withLookup(cmd.Context(), func(store results.RunLog) error {
				run, err = engine.StartStream(cmd.Context(), c, store, a.cfg.Temporal.TaskQueue, s)
				return err
			}); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "started stream %s: workflow %s (run %s)\n", s.RunID, run.GetID(), run.GetRunID())
			return waitStream(cmd, c, run, s.RunID, wait)
		},
	}
	a.bindStreamFlags(start, &f)
	wait.bind(start, "stream")
	cmd.AddCommand(start)
	signalCmd := func(name, signal, short string) *cobra.Command {
		return &cobra.Command{
			Use: name + " RUN", Short: short, Args: runArg,
			RunE: a.withClient(func(cmd *cobra.Command, args []string, c client.Client) error {
				if err := c.SignalWorkflow(cmd.Context(), contract.StreamWorkflowID(args[0]), "", signal, nil); err != nil {
					return fmt.Errorf("%s stream %s: %w", name, args[0], err)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "sent %s to stream %s\n", signal, args[0])
				return nil
			}),
		}
	}
	cmd.AddCommand(signalCmd("pause", contract.SignalPause, "Pause a stream before its next episode"),
		signalCmd("resume", contract.SignalResume, "Resume a paused stream"),
		signalCmd("stop", contract.SignalStop, "Stop a stream after the current episode"))
	cmd.AddCommand(a.streamRestartCmd())
	cmd.AddCommand(a.streamSizeCmd(), a.streamTimingCmd())
	var statusJSON bool
	status := &cobra.Command{
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
			st, err := runstatus.StreamOf(cmd.Context(), c, args[0])
			if err != nil {
				return err
			}
			if err := a.withLookupStore(cmd.Context(), func(store results.Store) error {
				u, err := store.RunUsage(cmd.Context(), args[0])
				st.Endpoints = runstatus.Endpoints(u)
				return err
			}); err != nil {
				// The status is Temporal's; a results store this command
				// cannot read (an older schema, a database down) costs only
				// the endpoint figures, and the status says why.
				st.StoreError = err.Error()
			}
			if statusJSON {
				return printJSON(cmd, st)
			}
			return writeStreamStatus(cmd.OutOrStdout(), args[0], st)
		}),
	}
	status.Flags().BoolVar(&statusJSON, "json", false, "print the status as JSON")
	cmd.AddCommand(status)
	return cmd
}

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
			return waitStream(cmd, c, run, spec.RunID, wait)
		}),
	}
	wait.bind(cmd, "stream")
	return cmd
}

func printJSON(cmd *cobra.Command, v any) error {
	enc := json.NewEncoder(cmd.OutOrStdout())
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

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
func waitStream(cmd *cobra.Command, c client.Client, run client.WorkflowRun, runID string, w waitFlags) error {
	if !w.wait {
		return nil
	}
	if err := follow(cmd.Context(), cmd.ErrOrStderr(), run, streamRows(c, runID)); err != nil {
		return err
	}
	if w.json {
		var res contract.StreamResult
		if err := run.Get(cmd.Context(), &res); err != nil {
			return err
		}
		return printJSON(cmd, res)
	}
	st, err := runstatus.StreamOf(cmd.Context(), c, runID)
	if err != nil {
		return err
	}
	return writeStreamStatus(cmd.OutOrStdout(), runID, st)
}
