package workflows

import (
	"encoding/json"
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/clinevo/clinevo/activities"
	"github.com/clinevo/clinevo/contract"
)

// ExperimentWorkflow runs an experiment's conditions, each as soon as the
// condition it carries memory from has finished, independent ones in parallel.
// A condition whose run already finished (an experiment resumed after a
// failure) is not run again: its stored result is used. Every condition runs
// with its own settings: the experiment's base, then the experiment's and the
// condition's overrides.
func ExperimentWorkflow(ctx workflow.Context, spec contract.ExperimentSpec) (contract.ExperimentResult, error) {
	if err := spec.Validate(); err != nil {
		return contract.ExperimentResult{}, err
	}
	log := workflow.GetLogger(ctx)
	if err := workflow.UpsertTypedSearchAttributes(ctx, AttrRun.ValueSet(spec.Name), AttrKind.ValueSet(string(contract.KindExperiment))); err != nil {
		return contract.ExperimentResult{}, err
	}
	actx := activityOptions(ctx, 60)
	if err := workflow.ExecuteActivity(actx, a.PutExperiment, spec).Get(ctx, nil); err != nil {
		return contract.ExperimentResult{}, err
	}
	n := len(spec.Conditions)
	res := make([]contract.ConditionResult, n)
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
		res[i] = contract.ConditionResult{Name: c.Name, Kind: c.Kind, Run: run}
		var prev activities.RunResultReply
		if err := workflow.ExecuteActivity(actx, a.RunResult, run).Get(ctx, &prev); err != nil {
			return err
		}
		if prev.Found {
			state[i] = 2
			log.Info("condition already finished: reusing its result", "experiment", spec.Name, "condition", c.Name)
			return decodeResult(&res[i], prev.Result)
		}
		set, err := spec.SettingsOf(i)
		if err != nil {
			return err
		}
		state[i] = 1
		running++
		var dep *contract.StreamResult
		if d := c.Dependency(); d != "" {
			dep = res[index[d]].Stream
		}
		log.Info("condition started", "experiment", spec.Name, "condition", c.Name, "kind", string(c.Kind), "profile", set.Profile)
		var f workflow.ChildWorkflowFuture
		switch c.Kind {
		case contract.KindStream:
			s := streamSpec(spec, c, run, dep)
			s.Settings = set
			if r, ok := spec.Resume[c.Name]; ok {
				s = r // started before the experiment stopped: its recorded spec, from its last completed episode
			}
			f = workflow.ExecuteChildWorkflow(workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
				WorkflowID: contract.StreamWorkflowID(run), StaticSummary: fmt.Sprintf("experiment %s: %s", spec.Name, c.Name)}), StreamWorkflow, s)
		default:
			corpus := spec.CorpusOf(c)
			limit := c.Limit
			if limit == 0 {
				limit = spec.HeldOutLimit
			}
			var plan activities.StreamPlan
			if err := workflow.ExecuteActivity(actx, a.PlanCases, corpus, limit).Get(ctx, &plan); err != nil {
				return err
			}
			es := contract.EvalSpec{RunID: run, Kind: contract.KindHeldOut, Label: c.Name, Corpus: corpus, CaseIDs: plan.CaseIDs,
				Conditions: plan.Conditions, Stage: 1, Pass: 1, Concurrency: orInt(spec.EvalConcurrency, contract.DefaultEvalConcurrency),
				ActivityTimeoutSeconds: spec.ActivityTimeout, Settings: set}
			if dep != nil { // H3: the mature bank and rules of a finished run, frozen
				es.MemoryRuns, es.AsOf = dep.MemoryRuns, dep.LastEpisode
				if set.Evolver.Rules() {
					es.Rules = ruleTexts(dep.RuleBook)
				}
			}
			f = workflow.ExecuteChildWorkflow(workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
				WorkflowID: contract.EvaluationWorkflowID(run), StaticSummary: fmt.Sprintf("experiment %s: %s", spec.Name, c.Name)}), EvaluationWorkflow, es)
		}
		sel.AddFuture(f, func(f workflow.Future) {
			running--
			state[i] = 2
			var err error
			if c.Kind == contract.KindStream {
				var r contract.StreamResult
				err = f.Get(ctx, &r)
				res[i].Stream = &r
			} else {
				var r contract.EvalResult
				err = f.Get(ctx, &r)
				res[i].Eval = &r
			}
			if err != nil && firstErr == nil {
				firstErr = fmt.Errorf("condition %s: %w", c.Name, err)
			}
			if err == nil {
				log.Info("condition finished", "experiment", spec.Name, "condition", c.Name)
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
					return contract.ExperimentResult{}, err
				}
				progressed = true
			}
		}
		if running == 0 {
			break
		}
		sel.Select(ctx)
		if firstErr != nil {
			return contract.ExperimentResult{}, firstErr
		}
	}
	out := contract.ExperimentResult{Name: spec.Name, Conditions: res}
	if err := workflow.ExecuteActivity(actx, a.CompleteRun, activities.RunCompletion{Run: spec.Name, Kind: contract.KindExperiment, Result: out}).Get(ctx, nil); err != nil {
		return contract.ExperimentResult{}, err
	}
	return out, nil
}

func decodeResult(r *contract.ConditionResult, b json.RawMessage) error {
	if r.Kind == contract.KindStream {
		r.Stream = &contract.StreamResult{}
		return json.Unmarshal(b, r.Stream)
	}
	r.Eval = &contract.EvalResult{}
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
func streamSpec(e contract.ExperimentSpec, c contract.ConditionSpec, run string, dep *contract.StreamResult) contract.StreamSpec {
	s := contract.StreamSpec{RunID: run, Corpus: e.CorpusOf(c), Limit: e.Limit, StageSize: e.StageSize, Memory: c.Memory,
		StageEval: c.StageEval, Retention: c.Retention, EvalConcurrency: e.EvalConcurrency, ActivityTimeoutSeconds: e.ActivityTimeout}
	if c.Limit != 0 {
		s.Limit = c.Limit
	}
	if s.Memory == "" {
		s.Memory = contract.MemoryEmpty
	}
	if dep != nil {
		s = dep.CarryFrom(s)
	}
	return s
}
