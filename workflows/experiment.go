package workflows

import (
	"encoding/json"
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/clinevo/clinevo/activities"
)

// ConditionResult is one finished condition of an experiment.
type ConditionResult struct {
	Name   string                 `json:"name"`
	Kind   string                 `json:"kind"`
	Run    string                 `json:"run"`
	Stream *StreamResult          `json:"stream,omitempty"`
	Eval   *activities.EvalResult `json:"eval,omitempty"`
}

// ExperimentResult lists the conditions' results in spec order.
type ExperimentResult struct {
	Name       string            `json:"name"`
	Conditions []ConditionResult `json:"conditions"`
}

// ExperimentWorkflow runs an experiment's conditions, each as soon as the
// condition it carries memory from has finished, independent ones in parallel.
// A condition whose run already finished (an experiment resumed after a
// failure) is not run again: its stored result is used.
func ExperimentWorkflow(ctx workflow.Context, spec activities.ExperimentSpec) (ExperimentResult, error) {
	if err := spec.Validate(); err != nil {
		return ExperimentResult{}, err
	}
	if err := workflow.UpsertTypedSearchAttributes(ctx, AttrRun.ValueSet(spec.Name), AttrKind.ValueSet("experiment")); err != nil {
		return ExperimentResult{}, err
	}
	actx := activityOptions(ctx, 60)
	if err := workflow.ExecuteActivity(actx, a.PutExperiment, spec).Get(ctx, nil); err != nil {
		return ExperimentResult{}, err
	}
	n := len(spec.Conditions)
	res := make([]ConditionResult, n)
	state := make([]int, n) // 0 waiting, 1 running, 2 done
	index := map[string]int{}
	for i, c := range spec.Conditions {
		index[c.Name] = i
	}
	sel := workflow.NewSelector(ctx)
	var firstErr error
	running := 0

	start := func(i int) error {
		c := spec.Conditions[i]
		run := spec.RunID(c.Name)
		res[i] = ConditionResult{Name: c.Name, Kind: c.Kind, Run: run}
		var prev activities.RunResultReply
		if err := workflow.ExecuteActivity(actx, a.RunResult, run).Get(ctx, &prev); err != nil {
			return err
		}
		if prev.Found {
			state[i] = 2
			return decodeResult(&res[i], prev.Result)
		}
		state[i] = 1
		running++
		var dep *StreamResult
		if d := c.Dependency(); d != "" {
			dep = res[index[d]].Stream
		}
		var f workflow.ChildWorkflowFuture
		switch c.Kind {
		case "stream":
			s := streamSpec(spec, c, run, dep)
			f = workflow.ExecuteChildWorkflow(workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
				WorkflowID: activities.StreamWorkflowID(run), StaticSummary: fmt.Sprintf("experiment %s: %s", spec.Name, c.Name)}), StreamWorkflow, s)
		default:
			corpus := c.Corpus
			if corpus == "" {
				corpus = spec.HeldOut
			}
			limit := c.Limit
			if limit == 0 {
				limit = spec.HeldOutLimit
			}
			var plan activities.StreamPlan
			if err := workflow.ExecuteActivity(actx, a.PlanCases, corpus, limit).Get(ctx, &plan); err != nil {
				return err
			}
			es := activities.EvalSpec{RunID: run, Kind: activities.KindHeldOut, Label: c.Name, Corpus: corpus, CaseIDs: plan.CaseIDs,
				Conditions: plan.Conditions, Stage: 1, Pass: 1, K: orInt(c.K, 5), Concurrency: orInt(spec.EvalConcurrency, 8),
				ActivityTimeoutSeconds: spec.ActivityTimeout}
			if dep != nil { // H3: the mature bank and rules of a finished run, frozen
				es.MemoryRuns, es.AsOf = dep.MemoryRuns, dep.LastEpisode
				for _, r := range dep.RuleBook {
					es.Rules = append(es.Rules, r.Text)
				}
			}
			f = workflow.ExecuteChildWorkflow(workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
				WorkflowID: run + "/evaluation", StaticSummary: fmt.Sprintf("experiment %s: %s", spec.Name, c.Name)}), EvaluationWorkflow, es)
		}
		sel.AddFuture(f, func(f workflow.Future) {
			running--
			state[i] = 2
			var err error
			if c.Kind == "stream" {
				var r StreamResult
				err = f.Get(ctx, &r)
				res[i].Stream = &r
			} else {
				var r activities.EvalResult
				err = f.Get(ctx, &r)
				res[i].Eval = &r
			}
			if err != nil && firstErr == nil {
				firstErr = fmt.Errorf("condition %s: %w", c.Name, err)
			}
		})
		return nil
	}
	for {
		progressed := true
		for progressed {
			progressed = false
			for i, c := range spec.Conditions {
				if state[i] != 0 {
					continue
				}
				if d := c.Dependency(); d != "" && state[index[d]] != 2 {
					continue
				}
				if err := start(i); err != nil {
					return ExperimentResult{}, err
				}
				progressed = true
			}
		}
		if running == 0 {
			break
		}
		sel.Select(ctx)
		if firstErr != nil {
			return ExperimentResult{}, firstErr
		}
	}
	out := ExperimentResult{Name: spec.Name, Conditions: res}
	if err := workflow.ExecuteActivity(actx, a.CompleteRun, activities.RunCompletion{Run: spec.Name, Kind: "experiment", Result: out}).Get(ctx, nil); err != nil {
		return ExperimentResult{}, err
	}
	return out, nil
}

func decodeResult(r *ConditionResult, b json.RawMessage) error {
	if r.Kind == "stream" {
		r.Stream = &StreamResult{}
		return json.Unmarshal(b, r.Stream)
	}
	r.Eval = &activities.EvalResult{}
	return json.Unmarshal(b, r.Eval)
}

func orInt(v, d int) int {
	if v == 0 {
		return d
	}
	return v
}

// streamSpec builds a condition's stream; a carry condition continues its
// dependency's memory lineage, episode numbering and rule book.
func streamSpec(e activities.ExperimentSpec, c activities.ConditionSpec, run string, dep *StreamResult) activities.StreamSpec {
	s := activities.StreamSpec{RunID: run, Corpus: e.Corpus, Limit: e.Limit, StageSize: e.StageSize, Memory: c.Memory,
		K: c.K, Feedback: c.Feedback, SuccessCards: c.SuccessCards, TranscriptOnly: c.TranscriptOnly, UpdateInterval: c.UpdateInterval,
		StageEval: c.StageEval, Retention: c.Retention, EvalConcurrency: e.EvalConcurrency, ActivityTimeoutSeconds: e.ActivityTimeout, Rules: true}
	if c.Corpus != "" {
		s.Corpus = c.Corpus
	}
	if c.Limit != 0 {
		s.Limit = c.Limit
	}
	if c.Rules != nil {
		s.Rules = *c.Rules
	}
	if s.Memory == "" {
		s.Memory = activities.MemoryEmpty
	}
	if dep != nil {
		runs := dep.MemoryRuns
		s.CarryFrom = runs[: len(runs)-1 : len(runs)-1]
		s.CarryFrom = append(s.CarryFrom, runs[len(runs)-1])
		s.FirstEpisode = dep.LastEpisode
		s.RuleBook = dep.RuleBook
		s.Pass = len(runs) + 1
	}
	return s
}
