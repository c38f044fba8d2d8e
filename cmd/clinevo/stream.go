package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/clinevo/clinevo/activities"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/workflows"
)

// streamFlags are the flags that build a StreamSpec.
type streamFlags struct {
	spec      activities.StreamSpec
	carryFrom []string
	noRules   bool
}

func (a *app) bindStreamFlags(cmd *cobra.Command, f *streamFlags) {
	fl := cmd.Flags()
	fl.StringVar(&f.spec.RunID, "run", "", "run ID (required)")
	fl.StringVar(&f.spec.Corpus, "corpus", "", "corpus: a JSONL file or builtin:<split>[@seed] (default: config corpus)")
	fl.StringSliceVar(&f.spec.CaseIDs, "cases", nil, "case IDs in the order to play (default: the corpus order)")
	fl.IntVar(&f.spec.Limit, "limit", 0, "play only the first N cases")
	fl.IntVar(&f.spec.StageSize, "stage-size", 50, "episodes per stage")
	fl.IntVar(&f.spec.Pass, "pass", 1, "pass number")
	fl.StringVar(&f.spec.Memory, "memory", activities.MemoryEmpty, "memory mode: disabled, empty or carry")
	fl.StringSliceVar(&f.carryFrom, "carry-from", nil, "runs whose memory a carry run reads")
	fl.IntVar(&f.spec.FirstEpisode, "first-episode", 0, "episode number before the first episode (carry runs continue the lineage's numbering)")
	fl.BoolVar(&f.noRules, "no-rules", false, "do not edit or use the rule book")
	fl.IntVar(&f.spec.UpdateInterval, "update-interval", 1, "evolve after every N episodes")
	fl.IntVar(&f.spec.ActivityTimeoutSeconds, "activity-timeout", 120, "activity start-to-close timeout in seconds")
}

// buildSpec fills a spec from flags and config and validates it, corpus and
// case IDs included, before anything starts.
func (a *app) buildSpec(f *streamFlags) (activities.StreamSpec, error) {
	s := f.spec
	if s.Corpus == "" {
		s.Corpus = a.cfg.Corpus
	}
	s.CarryFrom = f.carryFrom
	s.Rules = !f.noRules
	ev := a.cfg.EvolverConfig()
	s.RuleBudget, s.MemoryBudget, s.Feedback, s.K = ev.RuleBudget, ev.MemoryBudget, ev.Mode, a.cfg.Memory.K
	success := ev.SuccessCards
	s.SuccessCards = &success
	s.Env = activities.EnvFrom(a.cfg.EpisodeConfig())
	w := a.cfg.Weights()
	s.Weights = &w
	if s.RuleBudget == 0 {
		s.Rules = false // B_P = 0 means a static prompt
		s.RuleBudget = 1
	}
	s = s.WithDefaults()
	if err := s.Validate(); err != nil {
		return s, err
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

func startStream(ctx context.Context, c client.Client, s activities.StreamSpec) (client.WorkflowRun, error) {
	return c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: activities.StreamWorkflowID(s.RunID), TaskQueue: workflows.TaskQueue,
		TypedSearchAttributes: temporal.NewSearchAttributes(workflows.AttrRun.ValueSet(s.RunID),
			workflows.AttrKind.ValueSet(activities.KindStream), workflows.AttrPass.ValueSet(int64(s.Pass))),
		StaticSummary: fmt.Sprintf("clinevo stream %s (%s, memory %s)", s.RunID, s.Corpus, s.Memory),
	}, workflows.StreamWorkflow, s)
}

func (a *app) streamCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "stream", Short: "Start and steer streams of episodes"}
	var f streamFlags
	var wait bool
	start := &cobra.Command{
		Use:   "start",
		Short: "Validate and start a stream (workflow ID <run>/stream)",
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := a.buildSpec(&f)
			if err != nil {
				return err
			}
			c, err := a.dial("")
			if err != nil {
				return err
			}
			defer c.Close()
			run, err := startStream(cmd.Context(), c, s)
			if err != nil {
				return fmt.Errorf("start stream %s: %w", s.RunID, err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "started stream %s: workflow %s (run %s)\n", s.RunID, run.GetID(), run.GetRunID())
			if !wait {
				return nil
			}
			var res workflows.StreamResult
			if err := run.Get(cmd.Context(), &res); err != nil {
				return err
			}
			return printJSON(cmd, res)
		},
	}
	a.bindStreamFlags(start, &f)
	start.Flags().BoolVar(&wait, "wait", false, "wait for the stream to finish")
	cmd.AddCommand(start)
	signalCmd := func(name, signal, short string) *cobra.Command {
		return &cobra.Command{
			Use: name + " RUN", Short: short, Args: cobra.ExactArgs(1),
			RunE: a.withClient(func(cmd *cobra.Command, args []string, c client.Client) error {
				if err := c.SignalWorkflow(cmd.Context(), activities.StreamWorkflowID(args[0]), "", signal, nil); err != nil {
					return fmt.Errorf("%s stream %s: %w", name, args[0], err)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "sent %s to stream %s\n", signal, args[0])
				return nil
			}),
		}
	}
	cmd.AddCommand(signalCmd("pause", workflows.SignalPause, "Pause a stream before its next episode"),
		signalCmd("resume", workflows.SignalResume, "Resume a paused stream"),
		signalCmd("stop", workflows.SignalStop, "Stop a stream after the current episode"))
	cmd.AddCommand(a.streamSizeCmd(), a.streamTimingCmd())
	cmd.AddCommand(&cobra.Command{
		Use: "status RUN", Short: "Show a stream's progress, running means and rule book", Args: cobra.ExactArgs(1),
		RunE: a.withClient(func(cmd *cobra.Command, args []string, c client.Client) error {
			id := activities.StreamWorkflowID(args[0])
			desc, err := c.DescribeWorkflowExecution(cmd.Context(), id, "")
			if err != nil {
				return fmt.Errorf("stream %s: %w", args[0], err)
			}
			out := map[string]any{"workflow_id": id, "status": desc.WorkflowExecutionInfo.Status.String()}
			var p workflows.Progress
			var rules []string
			if v, err := c.QueryWorkflow(cmd.Context(), id, "", workflows.QueryProgress); err == nil {
				if err := v.Get(&p); err == nil {
					out["progress"] = p
				}
				if v, err := c.QueryWorkflow(cmd.Context(), id, "", workflows.QueryRules); err == nil && v.Get(&rules) == nil {
					out["rules"] = rules
				}
			} else {
				var qe *temporal.QueryRejectedError
				if !errors.As(err, &qe) {
					out["query_error"] = err.Error()
				}
			}
			return printJSON(cmd, out)
		}),
	})
	return cmd
}

func printJSON(cmd *cobra.Command, v any) error {
	enc := json.NewEncoder(cmd.OutOrStdout())
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
