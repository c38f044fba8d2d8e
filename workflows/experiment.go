package workflows

import (
	"encoding/json"
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/clinevo/clinevo/activities"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/settings"
)

// ExperimentWorkflow runs an experiment's conditions, each as soon as the
// condition it carries memory from has finished, independent ones in parallel.
// A condition whose run already finished (an experiment resumed after a
// failure) is not run again: its stored result is used. Every condition runs
// with its own settings: the experiment's base, then the experiment's and the
// condition's overrides.
func ExperimentWorkflow(ctx workflow.Context, spec contract.ExperimentSpec) (contract.ExperimentResult, error) {
	res, err := runExperiment(ctx, spec)
	return res, stopped(ctx, "experiment", spec.Name, "experiment resume", err)
}

// versionPlanned is the change ID of experiments planned by an activity:
// from version 1 PutExperiment checks the spec and resolves every
// condition's settings and defaults, and the experiment claims its name; the
// plan is in the history, so a replay never depends on this build's
// defaults. Histories without the marker validate and resolve in workflow
// code, as before.
const versionPlanned = "plan-experiment"

// versionClaimConditions is the change ID of experiments that claim the run
// ID of every condition from their start: from version 1 the spec says so
// (ClaimsConditions) when PutExperiment records it, and each condition's
// stream carries the experiment's name (StreamSpec.Experiment), so that
// ValidateStream refuses that run ID to any other stream. Histories without
// the marker claim only their own name, as before.
const versionClaimConditions = "claim-conditions"

func runExperiment(ctx workflow.Context, spec contract.ExperimentSpec) (contract.ExperimentResult, error) {
	planned := workflow.GetVersion(ctx, versionPlanned, workflow.DefaultVersion, 1) >= 1
	if !planned {
		if err := spec.Validate(); err != nil {
			return contract.ExperimentResult{}, err
		}
	} else if spec.Claim == "" {
		spec.Claim = firstRun(ctx)
	}
	if planned && workflow.GetVersion(ctx, versionClaimConditions, workflow.DefaultVersion, 1) >= 1 {
		spec.ClaimsConditions = true
	}
	w, err := newWaiter(ctx, spec.Base.Durability)
	if err != nil {
		return contract.ExperimentResult{}, err
	}
	log := workflow.GetLogger(ctx)
	if err := workflow.UpsertTypedSearchAttributes(ctx, AttrRun.ValueSet(spec.Name), AttrKind.ValueSet(string(contract.KindExperiment))); err != nil {
		return contract.ExperimentResult{}, err
	}
	actx := activityOptions(ctx, 60)
	var plan activities.ExperimentPlan
	var planOut any // the plan, from version 1; older histories recorded none
	if planned {
		planOut = &plan
	}
	if err := w.activity(actx, a.PutExperiment, planOut, spec); err != nil {
		return contract.ExperimentResult{}, err
	}
	if planned && len(plan.Settings) != len(spec.Conditions) {
		return contract.ExperimentResult{}, fmt.Errorf("experiment %s: PutExperiment planned %d conditions of %d: a worker older than this experiment ran it; upgrade every worker, then resume",
			spec.Name, len(plan.Settings), len(spec.Conditions))
	}
	if planned {
		w.dur = plan.Durability
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
		if err := w.activity(actx, a.RunResult, &prev, run); err != nil {
			return err
		}
		if prev.Found {
			state[i] = 2
			log.Info("condition already finished: reusing its result", "experiment", spec.Name, "condition", c.Name)
			return decodeResult(&res[i], prev.Result)
		}
		var set settings.Settings
		if planned {
			set = plan.Settings[i]
		} else if set, err = spec.SettingsOf(i); err != nil {
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
			if spec.ClaimsConditions {
				s.Experiment = spec.Name
			}
			f = workflow.ExecuteChildWorkflow(workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
				WorkflowID: contract.StreamWorkflowID(run), StaticSummary: fmt.Sprintf("experiment %s: %s", spec.Name, c.Name)}), StreamWorkflow, s)
		default:
			corpus := spec.CorpusOf(c)
			limit := c.Limit
			if limit == 0 {
				limit = spec.HeldOutLimit
			}
			var cases activities.StreamPlan
			if err := w.activity(actx, a.PlanCases, &cases, corpus, limit); err != nil {
				return err
			}
			concurrency := plan.EvalConcurrency
			if !planned {
				concurrency = orInt(spec.EvalConcurrency, contract.DefaultEvalConcurrency)
			}
			es := contract.EvalSpec{RunID: run, Kind: contract.KindHeldOut, Label: c.Name, Corpus: corpus, CaseIDs: cases.CaseIDs,
				Conditions: cases.Conditions, Stage: 1, Pass: 1, Concurrency: concurrency,
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
	if err := w.activity(actx, a.CompleteRun, nil, activities.RunCompletion{Run: spec.Name, Kind: contract.KindExperiment, Result: out}); err != nil {
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
		StageEval: c.StageEval, Retention: c.Retention, EvalConcurrency: e.EvalConcurrency, ActivityTimeoutSeconds: e.ActivityTimeout,
		ExperimentBudget: e.BudgetOf()}
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
