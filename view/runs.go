package view

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/costplan"
	"github.com/clinevo/clinevo/fault"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/runstatus"
)

// status is a workflow's state as a page shows it: Temporal's answer, or,
// where Temporal has no answer (it is down, not configured, or no longer
// knows the workflow), what the results store says of the run.
type status struct {
	WorkflowID string
	WorkflowState
	Err       string // why Temporal gave no status: a note beside the stored one
	Stored    bool   // the status is the results store's
	transient bool   // Temporal did not answer: ask again
}

// note adds what the page could not read of the run to Err.
func (s *status) note(what string) {
	if s.Err != "" {
		what = s.Err + "; " + what
	}
	s.Err = what
}

// ErrShort is Err up to its first colon: "Temporal did not answer", the
// whole of it in the note's title.
func (s status) ErrShort() string {
	short, _, _ := strings.Cut(s.Err, ":")
	return short
}

// live reports whether a page showing this status should keep polling.
func (s status) live() bool {
	switch s.Status {
	case "running", "paused", "waiting", "pending":
		return true
	case "completed", "stopped", "not started":
		return false
	}
	return s.transient
}

// settle completes a Temporal status with the results store's: a stored
// result says that the run finished (completed, or stopped early for a
// stream that was told to stop), which is true with Temporal gone, and tells
// a stopped stream from one that ran to its end; without one, a run that has
// neither a description nor a record has not started. started says whether
// the store describes the run or holds records of it. It returns the mean S
// the stored result carries (a stream's overall means, an evaluation's), nil
// without one.
func (s *Server) settle(ctx context.Context, st *status, run string, started bool) (*float64, error) {
	raw, err := s.o.Results.RunResult(ctx, run)
	switch {
	case errors.Is(err, results.ErrNotFound):
		raw = nil
	case err != nil:
		return nil, err
	}
	var done struct {
		Stopped bool            `json:"stopped"`
		Overall *contract.Means `json:"overall"` // a stream's
		Means   *contract.Means `json:"means"`   // an evaluation's
	}
	answered := st.Err == "" && st.Status != "unknown"
	if raw != nil {
		if err := json.Unmarshal(raw, &done); err != nil {
			// One row that does not decode costs its run's status, not the
			// page it is listed on.
			st.note(fmt.Sprintf("the results store's result of run %s does not decode: %v", run, err))
			raw = nil
		}
	}
	switch {
	case raw != nil && done.Stopped && (!answered || st.Status == "completed"):
		st.Status, st.Stored = "stopped", !answered
	case raw != nil && !answered:
		st.Status, st.Stored = "completed", true
	case raw == nil && !started && !answered:
		st.Status, st.Stored, st.Err = "not started", true, ""
	}
	for _, m := range []*contract.Means{done.Overall, done.Means} {
		if m != nil && m.N > 0 {
			return &m.S, nil
		}
	}
	return nil, nil
}

// stateOf asks Temporal for a workflow's state; the pages show a failure to
// ask instead of failing themselves.
func (s *Server) stateOf(ctx context.Context, id string) status {
	return s.states(ctx, []string{id})[0]
}

// states asks Temporal for the state of several workflows at once, so that a
// page waits for Temporal's slowest answer, not for the sum of them. After a
// failure Temporal is not asked again for temporalRetry: a page that polls
// while Temporal is down answers at once.
func (s *Server) states(ctx context.Context, ids []string) []status {
	out := make([]status, len(ids))
	for i, id := range ids {
		out[i].WorkflowID = id
	}
	if s.o.Workflows == nil {
		for i := range out {
			out[i].Err = "no Temporal configured"
		}
		return out
	}
	s.mu.Lock()
	down, why := time.Now().Before(s.downUntil), s.downWhy
	s.mu.Unlock()
	if down {
		for i := range out {
			out[i].Err, out[i].transient = why, true
		}
		return out
	}
	var wg sync.WaitGroup
	for i := range out {
		wg.Go(func() {
			ws, err := s.o.Workflows.State(ctx, out[i].WorkflowID)
			if err != nil {
				out[i].Err, out[i].transient = "Temporal did not answer: "+err.Error(), true
				s.mu.Lock()
				s.downUntil, s.downWhy = time.Now().Add(temporalRetry), out[i].Err
				s.mu.Unlock()
				return
			}
			out[i].WorkflowState = ws
		})
	}
	wg.Wait()
	return out
}

// temporalRetry is how long the pages take Temporal for down after it failed
// to answer.
const temporalRetry = 10 * time.Second

// runRow is one run on the runs page.
type runRow struct {
	Run, Kind string
	Episodes  int
	Status    status
	// S is the mean outcome score of the run's records so far; nil without
	// records.
	S *float64
	// Conditions is, on an experiment's row, how many of its conditions
	// finished, of how many.
	Finished, Conditions int
}

type indexPage struct {
	Title       string
	Experiments []runRow
	Runs        []runRow
	Evaluations []runRow // runs with records and no description: stage evaluations, replays, held-out
	anyLive     bool
}

func (p indexPage) Live() bool { return p.anyLive }

func (s *Server) index(ctx context.Context, _ *http.Request) (any, error) {
	runs, counts, err := s.o.Results.Runs(ctx)
	if err != nil {
		return nil, err
	}
	p := indexPage{Title: "runs"}
	described := map[string]bool{}
	var ids []string
	for _, r := range runs {
		described[r.Run] = true
		ids = append(ids, r.WorkflowID)
	}
	var evals []string
	for run := range counts {
		if !described[run] {
			evals = append(evals, run)
		}
	}
	sort.Strings(evals)
	for _, run := range evals {
		ids = append(ids, contract.EvaluationWorkflowID(run))
	}
	st := s.states(ctx, ids)
	for i, r := range runs {
		row := runRow{Run: r.Run, Kind: r.Kind, Episodes: counts[r.Run], Status: st[i]}
		if r.Kind == string(contract.KindExperiment) {
			if err := s.conditionsDone(ctx, r, &row); err != nil {
				return nil, err
			}
			if _, err := s.settle(ctx, &row.Status, r.Run, experimentStarted(r.Run, runs, counts)); err != nil {
				return nil, err
			}
			terminated(&row.Status, r)
			p.anyLive = p.anyLive || row.Status.live()
			p.Experiments = append(p.Experiments, row)
			continue
		}
		if err := s.scored(ctx, &row); err != nil {
			return nil, err
		}
		terminated(&row.Status, r)
		p.anyLive = p.anyLive || row.Status.live()
		p.Runs = append(p.Runs, row)
	}
	for i, run := range evals {
		row := runRow{Run: run, Kind: "evaluation", Episodes: counts[run], Status: st[len(runs)+i]}
		if err := s.scored(ctx, &row); err != nil {
			return nil, err
		}
		p.anyLive = p.anyLive || row.Status.live()
		p.Evaluations = append(p.Evaluations, row)
	}
	return p, nil
}

// terminated completes a status with the reason the results store keeps
// for a terminated run (`clinevo stream terminate`): the reason where
// Temporal gave none, and the status itself where Temporal does not answer.
func terminated(st *status, r results.Run) {
	if r.Terminated == "" {
		return
	}
	switch {
	case st.Status == runstatus.StatusTerminated && st.Reason == "":
		st.Reason = r.Terminated
	case st.Err != "" || st.Status == "unknown":
		st.Status, st.Reason, st.Stored = runstatus.StatusTerminated, r.Terminated, true
	}
}

// experimentStarted reports whether any run of experiment name (its
// conditions', named name-CONDITION) is described or has records.
func experimentStarted(name string, runs []results.Run, counts map[string]int) bool {
	prefix := name + "-"
	for _, r := range runs {
		if strings.HasPrefix(r.Run, prefix) {
			return true
		}
	}
	for run, n := range counts {
		if n > 0 && strings.HasPrefix(run, prefix) {
			return true
		}
	}
	return false
}

// scored settles a run's status and finds its mean S: the one its stored
// result carries, or, while it has none, the mean of its records so far (so
// a polled page reads only the records of unfinished runs).
func (s *Server) scored(ctx context.Context, row *runRow) error {
	m, err := s.settle(ctx, &row.Status, row.Run, true)
	if err != nil || m != nil || row.Episodes == 0 {
		row.S = m
		return err
	}
	recs, err := s.o.Results.Records(ctx, row.Run)
	if f := fault.Of(err); f != nil && f.Class == fault.Schema {
		// A record that does not decode costs this row its mean, not the
		// page: the row says why.
		row.Status.note(fmt.Sprintf("the records of run %s do not decode: %v", row.Run, err))
		return nil
	}
	if err != nil {
		return err
	}
	sum := 0.0
	for _, r := range recs {
		sum += r.Scores.S
	}
	if len(recs) > 0 {
		mean := sum / float64(len(recs))
		row.S = &mean
	}
	return nil
}

// conditionsDone counts an experiment's conditions and those whose run
// stored its result.
func (s *Server) conditionsDone(ctx context.Context, r results.Run, row *runRow) error {
	var spec contract.ExperimentSpec
	if err := json.Unmarshal(r.Spec, &spec); err != nil {
		row.Status.note(fmt.Sprintf("the results store's spec of experiment %s does not decode: %v", r.Run, err))
		return nil // the row says so; the other rows stand
	}
	row.Conditions = len(spec.Conditions)
	for _, c := range spec.Conditions {
		_, err := s.o.Results.RunResult(ctx, spec.RunID(c.Name))
		switch {
		case err == nil:
			row.Finished++
		case !errors.Is(err, results.ErrNotFound):
			return err
		}
	}
	return nil
}

// stageRules is the rule book at the end of one stage.
type stageRules struct {
	Stage int
	After int // the episode number whose record carries it
	Rules []clinic.Rule
	Found bool
}

type runPage struct {
	Title      string
	Run        string
	Kind       string
	Spec       *specSummary
	Status     status
	Charts     []template.HTML
	Stages     []analysis.StageMean
	Overall    analysis.StageMean
	Records    []results.Record
	RuleStages []int
	RuleBook   stageRules
	Related    []string // evaluation runs of this stream
	Usage      []roleUsage
	MemoryRuns string // the lineage, for the memory page
	LastNumber int
	NoU        bool // the run's profile defines no U: shown as "–"
	Glossary   template.HTML
	// Where filters the episode list (the clause `episode list --where`
	// takes); Shown are the records it keeps, WhereErr why it keeps all.
	Where    string
	WhereErr string
	Shown    []results.Record
}

func (p runPage) Live() bool { return p.Status.live() }

// specSummary is what the run page says of a stream's spec: no role
// endpoint, key variable or file, only what was played and how.
type specSummary struct {
	Corpus, Memory, Benchmark string
	StageSize, Limit, Pass    int
	CarryFrom                 []string
	Roles                     []string // role: backend[/model]
}

type roleUsage struct {
	Role string
	results.Usage
}

func (s *Server) run(ctx context.Context, r *http.Request) (any, error) {
	id := r.URL.Query().Get("id")
	if id == "" {
		return nil, badRequest("run: the address needs ?id=RUN")
	}
	recs, err := s.o.Results.Records(ctx, id)
	if err != nil {
		return nil, err
	}
	runs, counts, err := s.o.Results.Runs(ctx)
	if err != nil {
		return nil, err
	}
	p := runPage{Title: "run " + id, Run: id, Kind: "evaluation", Records: recs}
	wf, err := p.describe(s.o.Benchmarks, runs, id)
	if err != nil {
		return nil, err
	}
	p.Status = s.stateOf(ctx, wf)
	if _, err := s.settle(ctx, &p.Status, id, true); err != nil {
		return nil, err
	}
	for _, r := range runs {
		if r.Run == id {
			terminated(&p.Status, r)
		}
	}
	for run := range counts {
		if strings.HasPrefix(run, id+"/") {
			p.Related = append(p.Related, run)
		}
	}
	sort.Strings(p.Related)
	s.addScores(ctx, &p)
	if err := p.addRuleBook(r.URL.Query().Get("stage")); err != nil {
		return nil, err
	}
	p.filter(r.URL.Query().Get("where"))
	usage, err := s.o.Results.RunUsage(ctx, id)
	if err != nil {
		return nil, err
	}
	p.Usage = roleUsages(usage)
	return p, nil
}

// describe reads run id's kind and, for a stream, its spec from the runs the
// store describes, and returns its workflow ID; a run neither described nor
// recorded, or an experiment, is not found.
func (p *runPage) describe(set bench.Set, runs []results.Run, id string) (string, error) {
	wf := contract.EvaluationWorkflowID(id)
	found := len(p.Records) > 0
	for _, run := range runs {
		if run.Run != id {
			continue
		}
		found, p.Kind, wf = true, run.Kind, run.WorkflowID
		if run.Kind == string(contract.KindStream) {
			var spec contract.StreamSpec
			if err := json.Unmarshal(run.Spec, &spec); err != nil {
				return "", fmt.Errorf("run %s: stored spec: %w", id, err)
			}
			b, _ := set.Of(spec.Settings.OrDefault()) // nil for a benchmark this build does not have: its shared roles
			p.Spec = summarise(spec.WithDefaults(), b)
			p.MemoryRuns = strings.Join(spec.MemoryRuns(), ",")
		}
	}
	if !found {
		return "", notFound("run %q is not in the results store", id)
	}
	if p.Kind == string(contract.KindExperiment) {
		return "", notFound("%s is an experiment: see /experiment?name=%s", id, id)
	}
	return wf, nil
}

// addScores adds the run's means, overall and by stage, with their charts
// and the glossary of its benchmark.
func (s *Server) addScores(ctx context.Context, p *runPage) {
	kind := p.Kind
	if kind != string(contract.KindStream) {
		kind = "evaluation"
	}
	cond := analysis.Condition(p.Run, kind, p.Run, p.Records)
	// A held-out run stores no spec: its settings are its condition's.
	if src, err := results.SourceOfRun(ctx, s.o.Results, p.Run); err == nil {
		cond.Benchmark = src.Settings.OrDefault().Benchmark
		cond.Bench, _ = s.o.Benchmarks.Get(cond.Benchmark) // nil for a benchmark this build does not have
	}
	p.NoU = !cond.DefinesU()
	p.Glossary = analysis.GlossaryHTML(analysis.Glossaries(cond.Bench))
	p.Stages, p.Overall = cond.Stages, cond.Overall
	if len(cond.Stages) > 0 {
		p.Charts = analysis.StageCharts(analysis.Report{Conditions: []analysis.ConditionReport{cond}})
	}
}

// addRuleBook adds the rule book as of the stage asked for (empty: the last
// stage that recorded one).
func (p *runPage) addRuleBook(asked string) error {
	for _, rec := range p.Records {
		p.LastNumber = max(p.LastNumber, rec.Number)
		if rec.RuleBook != nil && !slices.Contains(p.RuleStages, rec.Stage) {
			p.RuleStages = append(p.RuleStages, rec.Stage)
		}
	}
	if len(p.RuleStages) == 0 {
		return nil
	}
	stage := p.RuleStages[len(p.RuleStages)-1]
	if asked != "" {
		var err error
		if stage, err = strconv.Atoi(asked); err != nil {
			return badRequest("run %s: stage %q is not a number", p.Run, asked)
		}
	}
	p.RuleBook = ruleBookAt(p.Records, stage)
	return nil
}

// filter keeps the episodes a where clause matches in the list; a clause
// that does not parse keeps them all and says why.
func (p *runPage) filter(where string) {
	p.Where, p.Shown = where, p.Records
	f, err := runstatus.ParseWhere(where)
	if err != nil {
		p.WhereErr = err.Error()
		return
	}
	p.Shown = nil
	for _, r := range p.Records {
		if f.Match(r) {
			p.Shown = append(p.Shown, r)
		}
	}
}

// ruleBookAt is the rule book after the last episode of a stage: the one the
// next stage started from (records carry the book after their batch).
func ruleBookAt(recs []results.Record, stage int) stageRules {
	out := stageRules{Stage: stage}
	last := -1
	for _, r := range recs {
		if r.Stage == stage && r.RuleBook != nil && r.Index > last {
			last = r.Index
			out.After, out.Rules, out.Found = r.Number, r.RuleBook, true
		}
	}
	return out
}

// summarise is a stream's spec as its page shows it; b is its benchmark.
func summarise(s contract.StreamSpec, b bench.Benchmark) *specSummary {
	return &specSummary{Corpus: s.Corpus, Memory: string(s.Memory), Benchmark: s.Settings.Benchmark, StageSize: s.StageSize, Limit: s.Limit, Pass: s.Pass,
		CarryFrom: s.CarryFrom, Roles: analysis.Models(b, s.Settings)}
}

type experimentPage struct {
	Title      string
	Name       string
	Finished   bool
	Status     status
	Conditions []conditionStatus
	Report     template.HTML
	// Plan and Used are the experiment's plan beside its use so far
	// (costplan.Compare, as `experiment status` prints them); PlanError says
	// why there is no plan.
	Plan, Used *costplan.Plan
	PlanError  string
}

// PlanRows pairs each planned condition with its use.
func (p experimentPage) PlanRows() []planPair[costplan.Condition] {
	var out []planPair[costplan.Condition]
	for i, c := range p.Plan.Conditions {
		out = append(out, planPair[costplan.Condition]{Plan: c, Used: p.Used.Conditions[i]})
	}
	return out
}

// RoleRows pairs each role's planned total with its use.
func (p experimentPage) RoleRows() []planPair[costplan.Role] {
	var out []planPair[costplan.Role]
	for i, r := range p.Plan.Total {
		out = append(out, planPair[costplan.Role]{Plan: r, Used: p.Used.Total[i]})
	}
	return out
}

type planPair[T any] struct{ Plan, Used T }

type conditionStatus struct {
	Title, Kind, Run string
	Episodes         int
	Status           status
	S                *float64 // the mean S of its records so far
}

func (p experimentPage) Live() bool { return !p.Finished && p.Status.live() }

// experiment builds the experiment's report from the store as it stands:
// while the experiment runs, from the records written so far.
func (s *Server) experiment(ctx context.Context, r *http.Request) (any, error) {
	name := r.URL.Query().Get("name")
	if name == "" {
		return nil, badRequest("experiment: the address needs ?name=NAME")
	}
	in, finished, err := analysis.LoadLive(ctx, s.o.Results, s.o.Benchmarks, name, s.corpora.Load)
	if err != nil {
		return nil, err
	}
	p := experimentPage{Title: "experiment " + name, Name: name, Finished: finished}
	ids := []string{contract.ExperimentWorkflowID(name)}
	for _, c := range in.Spec.Conditions {
		run := in.Spec.RunID(c.Name)
		p.Conditions = append(p.Conditions, conditionStatus{Title: c.Title(), Kind: string(c.Kind), Run: run, Episodes: len(in.Records[run])})
		if c.Kind == contract.KindStream {
			ids = append(ids, contract.StreamWorkflowID(run))
		} else {
			ids = append(ids, contract.EvaluationWorkflowID(run))
		}
	}
	st := s.states(ctx, ids)
	p.Status = st[0]
	runs, counts, err := s.o.Results.Runs(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := s.settle(ctx, &p.Status, name, experimentStarted(name, runs, counts)); err != nil {
		return nil, err
	}
	for i := range p.Conditions {
		c := &p.Conditions[i]
		c.Status = st[i+1]
		started := c.Episodes > 0 || slices.ContainsFunc(runs, func(r results.Run) bool { return r.Run == c.Run })
		if _, err := s.settle(ctx, &c.Status, c.Run, started); err != nil {
			return nil, err
		}
		if c.Episodes > 0 {
			m := analysis.Condition(c.Title, c.Kind, c.Run, in.Records[c.Run]).Overall.S
			c.S = &m
		}
	}
	p.Report, err = analysis.HTML(analysis.Build(in), episodeHref)
	if err != nil {
		return nil, err
	}
	all, err := s.o.Results.Records(ctx, "")
	if err != nil {
		return nil, err
	}
	if planned, used, err := costplan.Compare(s.o.Benchmarks, in.Spec, all); err != nil {
		p.PlanError = err.Error() // a corpus the viewer cannot load: the page without a plan, saying why
	} else {
		p.Plan, p.Used = &planned, &used
	}
	return p, nil
}

func episodeHref(id string) string { return "/episode?id=" + urlQuery(id) }
