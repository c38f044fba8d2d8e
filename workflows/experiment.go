package workflows

import (
	"encoding/json"
	"fmt"

	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/workflow"

	"github.com/clinevo/clinevo/activities/acts"
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
	// A spec started from the Temporal CLI arrives with its orderings not
	// yet written out; clinevo's own start expands it first. Expand is pure,
	// and the identity on every spec without orderings: histories from
	// before orderings replay unchanged, with no version marker.
	spec = spec.Expand()
	e, err := newExperiment(ctx, spec)
	if err != nil {
		return contract.ExperimentResult{}, err
	}
	if err := e.plan(); err != nil {
		return contract.ExperimentResult{}, err
	}
	if err := e.run(); err != nil {
		return contract.ExperimentResult{}, err
	}
	return e.complete()
}

// condition states of a running experiment.
const (
	conditionWaiting = iota // for the condition it depends on
	conditionRunning
	conditionDone
)

// experiment is one run of ExperimentWorkflow: its spec, its plan and each
// condition's state and result. Its methods are the steps of the run, in
// order: plan, run (start every condition whose dependency is done, wait for
// one to finish, again), complete.
type experiment struct {
	ctx, actx workflow.Context
	spec      contract.ExperimentSpec
	w         *waiter
	log       log.Logger
	// planned: the history is of version 1 (versionPlanned), whose plan
	// holds every condition's resolved settings.
	planned  bool
	resolved acts.ExperimentPlan
	res      []contract.ConditionResult
	state    []int
	index    map[string]int // condition name -> index
	sel      workflow.Selector
	running  int
	err      error // the first condition to fail
}

func newExperiment(ctx workflow.Context, spec contract.ExperimentSpec) (*experiment, error) {
	planned := workflow.GetVersion(ctx, versionPlanned, workflow.DefaultVersion, 1) >= 1
	if !planned {
		if err := spec.Validate(); err != nil {
			return nil, err
		}
	} else if spec.Claim == "" {
		spec.Claim = firstRun(ctx)
	}
	if planned && workflow.GetVersion(ctx, versionClaimConditions, workflow.DefaultVersion, 1) >= 1 {
		spec.ClaimsConditions = true
	}
	w, err := newWaiter(ctx, spec.Base.Durability)
	if err != nil {
		return nil, err
	}
	if err := workflow.UpsertTypedSearchAttributes(ctx, AttrRun.ValueSet(spec.Name), AttrKind.ValueSet(string(contract.KindExperiment))); err != nil {
		return nil, err
	}
	n := len(spec.Conditions)
	e := &experiment{ctx: ctx, actx: activityOptions(ctx, 60), spec: spec, w: w, log: workflow.GetLogger(ctx), planned: planned,
		res: make([]contract.ConditionResult, n), state: make([]int, n), index: map[string]int{}, sel: workflow.NewSelector(ctx)}
	for i, c := range spec.Conditions {
		e.index[c.Name] = i
	}
	return e, nil
}

// plan records the experiment (PutExperiment) and, from version 1, reads
// back its plan: every condition's resolved settings and the durability.
func (e *experiment) plan() error {
	var out *acts.ExperimentPlan // the plan, from version 1; older histories recorded none
	if e.planned {
		out = &e.resolved
	}
	if err := call(e.actx, e.w.activity, acts.PutExperiment, e.spec, out); err != nil {
		return err
	}
	if !e.planned {
		return nil
	}
	if len(e.resolved.Settings) != len(e.spec.Conditions) {
		return fmt.Errorf("experiment %s: PutExperiment planned %d conditions of %d: a worker older than this experiment ran it; upgrade every worker, then resume",
			e.spec.Name, len(e.resolved.Settings), len(e.spec.Conditions))
	}
	e.w.dur = e.resolved.Durability
	return nil
}

// run starts every condition whose dependency is done and waits for one to
// finish, until none runs; the first condition to fail ends it.
func (e *experiment) run() error {
	for {
		if err := e.startReady(); err != nil {
			return err
		}
		if e.running == 0 {
			return nil
		}
		e.sel.Select(e.ctx)
		if e.err != nil {
			return e.err
		}
	}
}

// startReady starts the waiting conditions whose dependency is done, again
// until none is left to start (a condition whose run had finished is done at
// once, which may free another).
func (e *experiment) startReady() error {
	for progressed := true; progressed; {
		progressed = false
		for i, c := range e.spec.Conditions {
			if e.state[i] != conditionWaiting {
				continue
			}
			if d := c.Dependency(); d != "" && e.state[e.index[d]] != conditionDone {
				continue
			}
			if err := e.start(i); err != nil {
				return err
			}
			progressed = true
		}
	}
	return nil
}

// start starts condition i as a child workflow; a condition whose run
// already finished (an experiment resumed) reuses its stored result.
func (e *experiment) start(i int) error {
	c := e.spec.Conditions[i]
	run := e.spec.RunID(c.Name)
	e.res[i] = contract.ConditionResult{Name: c.Name, Kind: c.Kind, Run: run}
	var prev acts.RunResultReply
	if err := call(e.actx, e.w.activity, acts.RunResult, run, &prev); err != nil {
		return err
	}
	if prev.Found {
		e.state[i] = conditionDone
		e.log.Info("condition already finished: reusing its result", "experiment", e.spec.Name, "condition", c.Name)
		return decodeResult(&e.res[i], prev.Result)
	}
	set, err := e.settingsOf(i)
	if err != nil {
		return err
	}
	e.state[i] = conditionRunning
	e.running++
	var dep *contract.StreamResult
	if d := c.Dependency(); d != "" {
		dep = e.res[e.index[d]].Stream
	}
	e.log.Info("condition started", "experiment", e.spec.Name, "condition", c.Name, "kind", string(c.Kind), "profile", set.Benchmark)
	var f workflow.ChildWorkflowFuture
	if c.Kind == contract.KindStream {
		f = e.startStream(c, run, set, dep)
	} else if f, err = e.startHeldOut(c, run, set, dep); err != nil {
		return err
	}
	e.sel.AddFuture(f, func(f workflow.Future) { e.finished(i, f) })
	return nil
}

// settingsOf are condition i's settings: the plan's, or (before version 1)
// resolved here.
func (e *experiment) settingsOf(i int) (settings.Settings, error) {
	if e.planned {
		return e.resolved.Settings[i], nil
	}
	return e.spec.SettingsOf(i)
}

// startStream starts a stream condition, or continues one that started
// before the experiment stopped from its recorded spec.
func (e *experiment) startStream(c contract.ConditionSpec, run string, set settings.Settings, dep *contract.StreamResult) workflow.ChildWorkflowFuture {
	s := streamSpec(e.spec, c, run, dep)
	s.Settings = set
	if r, ok := e.spec.Resume[c.Name]; ok {
		s = r // started before the experiment stopped: its recorded spec, from its last completed episode
	}
	if e.spec.ClaimsConditions {
		s.Experiment = e.spec.Name
	}
	return workflow.ExecuteChildWorkflow(workflow.WithChildOptions(e.ctx, workflow.ChildWorkflowOptions{
		WorkflowID: contract.StreamWorkflowID(run), StaticSummary: fmt.Sprintf("experiment %s: %s", e.spec.Name, c.Name)}), StreamWorkflow, s)
}

// startHeldOut starts a held-out condition's evaluation: its cases planned
// by an activity, with the mature bank and rules of the stream it depends
// on (H3), frozen, each case played in each of the condition's epochs.
func (e *experiment) startHeldOut(c contract.ConditionSpec, run string, set settings.Settings, dep *contract.StreamResult) (workflow.ChildWorkflowFuture, error) {
	corpus := e.spec.CorpusOf(c)
	limit := c.Limit
	if limit == 0 {
		limit = e.spec.HeldOutLimit
	}
	var cases acts.StreamPlan
	if err := call2(e.actx, e.w.activity, acts.PlanCases, corpus, limit, &cases); err != nil {
		return nil, err
	}
	concurrency := e.resolved.EvalConcurrency
	if !e.planned {
		concurrency = orInt(e.spec.EvalConcurrency, contract.DefaultEvalConcurrency)
	}
	es := contract.EvalSpec{RunID: run, Kind: contract.KindHeldOut, Label: c.Name, Corpus: corpus, CaseIDs: cases.CaseIDs,
		Conditions: cases.Conditions, Stage: 1, Pass: 1, Concurrency: concurrency,
		ActivityTimeoutSeconds: e.spec.ActivityTimeout, Settings: set}
	if k := e.spec.EpochsOf(c); k > 1 { // one epoch: the input it always had
		es.Epochs = k
	}
	if dep != nil { // H3: the mature bank and rules of a finished run, frozen
		es.MemoryRuns, es.AsOf = dep.MemoryRuns, dep.LastEpisode
		if set.Evolver.Rules() {
			es.Rules = ruleTexts(dep.RuleBook)
		}
	}
	return workflow.ExecuteChildWorkflow(workflow.WithChildOptions(e.ctx, workflow.ChildWorkflowOptions{
		WorkflowID: contract.EvaluationWorkflowID(run), StaticSummary: fmt.Sprintf("experiment %s: %s", e.spec.Name, c.Name)}), EvaluationWorkflow, es), nil
}

// finished takes condition i's result from its child workflow.
func (e *experiment) finished(i int, f workflow.Future) {
	c := e.spec.Conditions[i]
	e.running--
	e.state[i] = conditionDone
	var err error
	if c.Kind == contract.KindStream {
		var r contract.StreamResult
		err = f.Get(e.ctx, &r)
		e.res[i].Stream = &r
	} else {
		var r contract.EvalResult
		err = f.Get(e.ctx, &r)
		e.res[i].Eval = &r
	}
	if err != nil && e.err == nil {
		e.err = fmt.Errorf("condition %s: %w", c.Name, err)
	}
	if err == nil {
		e.log.Info("condition finished", "experiment", e.spec.Name, "condition", c.Name)
	}
}

// complete records the experiment's result (CompleteRun) and returns it.
func (e *experiment) complete() (contract.ExperimentResult, error) {
	out := contract.ExperimentResult{Name: e.spec.Name, Conditions: e.res}
	if err := call(e.actx, e.w.activity, acts.CompleteRun, acts.RunCompletion{Run: e.spec.Name, Kind: contract.KindExperiment, Result: out}, nil); err != nil {
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
		ExperimentBudget: e.BudgetOf(), Order: c.Order, OrderBlock: c.OrderBlock}
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
