// Package costplan estimates, before an experiment starts, what it will use:
// episodes, calls per role, input and output tokens, USD and wall time; and
// reads the same figures from a finished experiment's records, so that plan
// and use can be printed side by side.
package costplan

import (
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"strings"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/settings"
)

// Guesses for what no earlier run recorded: clinevo's own figures, not a
// paper's, printed as the source "guess" so nobody mistakes them for
// measurements.
const (
	GuessPromptTokens     = 1500 // tokens a model call reads
	GuessCompletionTokens = 200  // tokens it writes (or max_tokens, if lower)
	GuessCallSeconds      = 2.0  // seconds a model call takes
	// GuessBuiltinCallSeconds is the wall time a built-in role's turn adds to
	// an episode in a running experiment: the turn's activities' round trips
	// through Temporal and the stores, beside the other conditions playing
	// at once. Measured on the shipped experiments (docs/performance.md,
	// "Wall time, planned and measured"): an episode's planned built-in
	// calls take 0.0085 s each in the quick experiment, 0.0196 s in an
	// experiment of eight streams at once; 0.013 is clinevo's middle.
	GuessBuiltinCallSeconds = 0.013
	// GuessEpisodeCPUSeconds is the processor time one episode costs the
	// machine that runs the worker and the embedded Temporal server
	// (`clinevo dev`): the roles' built-in work, the workflows, the stores
	// and the learning. Conditions that run at once share that machine's
	// cores, so an experiment never takes less wall time than its episodes'
	// processor time over the cores. Measured with the built-in roles
	// (clinevo's figure, docs/performance.md, "Wall time, planned and
	// measured"): 0.107 to 0.146 processor seconds an episode over four
	// shipped experiments of three benchmarks; 0.13 is their middle.
	GuessEpisodeCPUSeconds = 0.13
)

// Role is one role's planned (or used) model use.
type Role struct {
	Role             string  `json:"role"`
	Model            string  `json:"model"` // "builtin" for a built-in role
	Calls            float64 `json:"calls"`
	PromptTokens     float64 `json:"prompt_tokens"`
	CompletionTokens float64 `json:"completion_tokens"`
	CostUSD          float64 `json:"cost_usd"`
	// Source says where the figures come from: recorded (means of earlier
	// runs), bound (the benchmark's budgets: at most), guess (GuessPromptTokens
	// and the like), used (a finished run's records).
	Source string `json:"source"`
}

// Condition is one condition's plan.
type Condition struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Budgets string `json:"budgets"`
	// Episodes are the stream's learning episodes; EvalEpisodes its stage
	// evaluations, retention replays, or the held-out episodes.
	Episodes     int `json:"episodes"`
	EvalEpisodes int `json:"eval_episodes"`
	// Attempts is MaTTS's k (evolver.matts.k) when above 1: each learning
	// episode plays its case k times, and every role but the evolver's is
	// planned k times over.
	Attempts    int     `json:"attempts,omitempty"`
	Roles       []Role  `json:"roles"`
	WallSeconds float64 `json:"wall_seconds"`
}

// Plan is an experiment's plan, or its use.
type Plan struct {
	Experiment string      `json:"experiment"`
	Conditions []Condition `json:"conditions"`
	// Total sums the conditions' roles; WallSeconds is the longest chain of
	// dependent conditions (the experiment starts independent ones at once),
	// or, when more, the episodes' processor time over the machine's cores:
	// CPUSeconds over Cores (a plan's only; a use's are 0).
	Total       []Role  `json:"total"`
	CostUSD     float64 `json:"cost_usd"`
	WallSeconds float64 `json:"wall_seconds"`
	CPUSeconds  float64 `json:"cpu_seconds,omitempty"`
	Cores       int     `json:"cores,omitempty"`
	// ChainSeconds is the longest chain of dependent conditions alone.
	ChainSeconds float64 `json:"chain_seconds,omitempty"`
	// Orderings is what the spec's orderings add (nil: none).
	Orderings *OrderingsPlan `json:"orderings,omitempty"`
	// Epochs is what the held-out conditions' epochs add (nil: none).
	Epochs *EpochsPlan `json:"epochs,omitempty"`
}

// EpochsPlan is the share of a plan that the held-out conditions' epochs
// play: every held-out case K times, so the held-out episodes (records
// stored), calls, tokens, USD and wall time grow linearly with K.
type EpochsPlan struct {
	// K is each held-out condition's epochs, by name, in spec order
	// (Conditions); only conditions of more than one epoch.
	K          []int    `json:"k"`
	Conditions []string `json:"conditions"`
	// Episodes and CostUSD are those conditions' episodes (all their
	// epochs) and model USD, of the plan's Total episodes and CostUSD.
	Episodes int     `json:"episodes"`
	Total    int     `json:"total_episodes"`
	CostUSD  float64 `json:"cost_usd"`
}

// OrderingsPlan is the share of a plan that the orderings repeat: storage
// (the records of their episodes) and model use grow linearly with N.
type OrderingsPlan struct {
	N int `json:"n"`
	// Repeated are the spec's conditions the orderings repeat (by the first
	// ordering's name); Episodes and CostUSD are the episodes (evaluations
	// included) and model USD of all their orderings, of the plan's total.
	Repeated []string `json:"repeated"`
	Episodes int      `json:"episodes"`
	Total    int      `json:"total_episodes"`
	CostUSD  float64  `json:"cost_usd"`
}

// History is what earlier runs recorded: each condition is planned from the
// means of the records related to it (related), where there are any.
type History struct {
	recs []results.Record
	// cores is how many cores the machine that plays the experiment has
	// (0: this machine's, runtime.NumCPU).
	cores int
}

// OnCores is h for a machine of n cores.
func (h History) OnCores(n int) History {
	h.cores = n
	return h
}

type means struct {
	episodes int
	turns    float64
	actions  map[string]float64 // by action kind
	usage    map[string]results.Usage
	usageN   map[string]int // episodes that recorded usage of the role
	seconds  float64
	timed    int
}

// NewHistory keeps the records of earlier runs.
func NewHistory(recs []results.Record) History {
	return History{recs: recs}
}

// meansFor are the learning means (stream episodes) and evaluation means of
// the records related to a condition of benchmark b with settings s.
func (h History) meansFor(b bench.Benchmark, s settings.Settings) (learn, eval means) {
	for _, r := range h.recs {
		if !related(r, b, s) {
			continue
		}
		if r.Kind == string(contract.KindStream) {
			learn.add(r)
		} else {
			eval.add(r)
		}
	}
	return learn, eval
}

// related says whether record r measures what a condition of benchmark b
// with settings s will use: the doctor, who decides how many turns there
// are, was served as s serves it (the same model, or built in: no usage),
// and every role r recorded model use of is a model role of the condition on
// the same model. A role the episode did not call is no evidence either way.
// Otherwise an unrelated run (a built-in one, another model's) would move the
// plan and lend its turns to a model as calls.
func related(r results.Record, b bench.Benchmark, s settings.Settings) bool {
	want := map[string]string{}
	for _, name := range bench.RunRoles(b) {
		if rs := s.Roles[name]; rs.Backend == settings.OpenAI {
			want[name] = rs.Model
		}
	}
	for role, u := range r.Usage {
		if base, ok := strings.CutSuffix(role, "_fallback"); ok && want[base] != "" {
			continue // the built-in stand-in of a model role's unusable reply
		}
		if m, ok := want[role]; !ok || m != u.Model {
			return false
		}
	}
	return want["doctor"] == r.Usage["doctor"].Model
}

func (m *means) add(r results.Record) {
	if m.actions == nil {
		m.actions, m.usage, m.usageN = map[string]float64{}, map[string]results.Usage{}, map[string]int{}
	}
	m.episodes++
	m.turns += float64(r.Turns)
	for _, a := range r.Actions {
		kind, _, _ := strings.Cut(a, " ")
		m.actions[kind]++
	}
	for role, u := range r.Usage {
		s := m.usage[role]
		s.Model = u.Model
		s.Calls += u.Calls
		s.PromptTokens += u.PromptTokens
		s.CompletionTokens += u.CompletionTokens
		m.usage[role] = s
		m.usageN[role]++
	}
	if len(r.TimeMS) > 0 {
		for _, phase := range slices.Sorted(maps.Keys(r.TimeMS)) { // a float sum in one order: the same plan every time
			m.seconds += r.TimeMS[phase] / 1000
		}
		m.timed++
	}
}

// Counts are the episodes a condition plays (Count).
type Counts struct{ Learn, Eval int }

// Count is the episodes of a condition that plays cases cases: a stream's
// learning episodes, its stage evaluations (every stage once) and retention
// replays (final: stages 1..K-1 with the final memory; matrix: stage j with
// the memory of every later stage), or a held-out condition's episodes.
func Count(c contract.ConditionSpec, cases, stageSize int) Counts {
	if c.Kind == contract.KindHeldOut {
		return Counts{Eval: cases}
	}
	if stageSize <= 0 {
		stageSize = contract.DefaultStageSize
	}
	out := Counts{Learn: cases}
	if c.StageEval {
		out.Eval += cases
	}
	K := (cases + stageSize - 1) / stageSize
	if c.Retention != "" && K > 1 {
		for j := 1; j < K; j++ {
			n := min(stageSize, cases-(j-1)*stageSize)
			if c.Retention == contract.RetentionMatrix {
				out.Eval += n * (K - j)
			} else {
				out.Eval += n
			}
		}
	}
	return out
}

// CasesOf is the number of cases a condition plays: its limit, else the
// experiment's (held-out: heldout_limit), else the whole corpus (sizes: the
// corpora's sizes known so far, by reference; filled as they load).
func CasesOf(lib corpus.Library, spec contract.ExperimentSpec, c contract.ConditionSpec, sizes map[string]int) (int, error) {
	limit := spec.Limit
	if c.Kind == contract.KindHeldOut {
		limit = spec.HeldOutLimit
	}
	if c.Limit != 0 {
		limit = c.Limit
	}
	ref := spec.CorpusOf(c)
	n, ok := sizes[ref]
	if !ok {
		cp, err := lib.Load(ref)
		if err != nil {
			return 0, fmt.Errorf("condition %s: %w", c.Name, err)
		}
		n = len(cp.Cases)
		sizes[ref] = n
	}
	if limit > 0 && limit < n {
		n = limit
	}
	return n, nil
}

// Experiment plans spec, whose conditions play benchmarks of set, with the
// means of h (the zero History: none).
func Experiment(set bench.Set, spec contract.ExperimentSpec, h History) (Plan, error) {
	p := Plan{Experiment: spec.Name}
	sizes := map[string]int{}
	lib := corpus.NewLibrary(set)
	for i, c := range spec.Conditions {
		s, err := spec.SettingsOf(i)
		if err != nil {
			return Plan{}, err
		}
		b, err := set.Of(s)
		if err != nil {
			return Plan{}, fmt.Errorf("conditions[%d] (%s): %w", i, c.Name, err)
		}
		cases, err := CasesOf(lib, spec, c, sizes)
		if err != nil {
			return Plan{}, err
		}
		n := Count(c, cases, spec.StageSize)
		n.Eval *= spec.EpochsOf(c) // every held-out case, once per epoch
		cond := Condition{Name: c.Name, Kind: string(c.Kind), Budgets: bench.Budgets(b, s), Episodes: n.Learn, EvalEpisodes: n.Eval}
		hl, he := h.meansFor(b, s)
		learn, eval := perEpisode(b, s, hl, true), perEpisode(b, s, he, false)
		cond.Attempts = attempts(s, learn)
		for j := range learn {
			r := learn[j]
			e := eval[j]
			r.Calls = r.Calls*float64(n.Learn) + e.Calls*float64(n.Eval)
			r.PromptTokens = r.PromptTokens*float64(n.Learn) + e.PromptTokens*float64(n.Eval)
			r.CompletionTokens = r.CompletionTokens*float64(n.Learn) + e.CompletionTokens*float64(n.Eval)
			r.CostUSD = cost(s, r)
			cond.Roles = append(cond.Roles, r)
		}
		evalConc := orDefault(spec.EvalConcurrency, contract.DefaultEvalConcurrency)
		cond.WallSeconds = episodeSeconds(s, hl, learn)*float64(n.Learn) +
			episodeSeconds(s, he, eval)*float64(n.Eval)/float64(min(evalConc, evalSlots(b, s)))
		p.Conditions = append(p.Conditions, cond)
		p.CPUSeconds += float64(n.Learn*max(1, cond.Attempts)+n.Eval) * GuessEpisodeCPUSeconds
	}
	p.finish(spec)
	p.onCores(h.cores)
	return p, nil
}

// attempts scales a stream episode's roles by MaTTS's attempts
// (evolver.matts.k, ReasoningBank §3.3): every role plays each of a case's
// k attempts, and the evolver learns once from their contrast. It returns k,
// or 0 without MaTTS. The attempts start at once, so the wall time of an
// episode is left as it is; their processor time is not.
func attempts(s settings.Settings, learn []Role) int {
	k := s.Evolver.MaTTS.Attempts()
	if k == 1 {
		return 0
	}
	for j := range learn {
		if learn[j].Role != "evolver" {
			learn[j].Calls *= float64(k)
			learn[j].PromptTokens *= float64(k)
			learn[j].CompletionTokens *= float64(k)
		}
	}
	return k
}

// onCores bounds a plan's wall time below by its episodes' processor time
// over cores (0: this machine's): conditions the chain counts as running at
// once share them.
func (p *Plan) onCores(cores int) {
	if cores <= 0 {
		cores = runtime.NumCPU()
	}
	p.Cores = cores
	p.WallSeconds = max(p.WallSeconds, p.CPUSeconds/float64(cores))
}

// evalSlots is how many evaluation episodes of benchmark b can call the
// models at once: the lowest concurrency of a model role (every episode
// calls each).
func evalSlots(b bench.Benchmark, s settings.Settings) int {
	slots := math.MaxInt32
	for _, name := range bench.RunRoles(b) {
		if r := s.Roles[name]; r.Backend == settings.OpenAI && r.Concurrency > 0 {
			slots = min(slots, r.Concurrency)
		}
	}
	return slots
}

// perEpisode is each role's calls and tokens in one episode of benchmark b:
// recorded means where m has them, else the budgets' bounds and the
// guesses. A role the benchmark adds (a gatekeeper) is bounded by one call
// a non-final turn (clinevo's assumption: it answers questions and tests).
func perEpisode(b bench.Benchmark, s settings.Settings, m means, learning bool) []Role {
	var out []Role
	turns, src := float64(s.Episode.MaxTurns), "bound"
	if m.episodes > 0 {
		turns, src = m.turns/float64(m.episodes), "recorded"
	}
	action := func(kind string, bound float64) float64 {
		if m.episodes > 0 {
			return m.actions[kind] / float64(m.episodes)
		}
		return bound
	}
	for _, name := range bench.RunRoles(b) {
		rs := s.Roles[name]
		r := Role{Role: name, Model: "builtin", Source: src}
		if rs.Backend == settings.OpenAI {
			r.Model = rs.Model
		}
		switch name {
		case "doctor":
			r.Calls = turns
		case "patient":
			r.Calls = action("ASK", max(0, turns-1))
		case "exam":
			r.Calls = action("REQUEST_TEST", float64(s.Episode.MaxTests))
		case "consultant":
			bound := 0.0
			if s.Episode.MDTAllowed() {
				bound = 1
			}
			r.Calls = action("CALL_MDT", bound)
		case "judge":
			r.Calls = 1
		case "grader":
			r.Calls = grader.Indicator(learning)
		case "evolver":
			r.Calls = grader.Indicator(learning) / float64(max(1, s.Evolver.UpdateInterval))
		case "embeddings":
			r.Calls = turns // a retrieval a turn
		default:
			r.Calls = max(0, turns-1)
		}
		if u, ok := m.usage[name]; ok && m.usageN[name] > 0 && u.Calls > 0 && rs.Backend == settings.OpenAI {
			r.Calls = float64(u.Calls) / float64(m.episodes) // repairs included
			r.PromptTokens = float64(u.PromptTokens) / float64(m.episodes)
			r.CompletionTokens = float64(u.CompletionTokens) / float64(m.episodes)
			r.Source = "recorded"
		} else if rs.Backend == settings.OpenAI {
			r.PromptTokens = r.Calls * GuessPromptTokens
			completion := float64(GuessCompletionTokens)
			if rs.MaxTokens > 0 {
				completion = min(completion, float64(rs.MaxTokens))
			}
			r.CompletionTokens = r.Calls * completion
			r.Source += "+guess"
		}
		out = append(out, r)
	}
	return out
}

// episodeSeconds is an episode's wall time: the recorded mean, else its
// model calls at GuessCallSeconds each and its built-in roles' calls at
// GuessBuiltinCallSeconds.
func episodeSeconds(s settings.Settings, m means, roles []Role) float64 {
	if m.timed > 0 {
		return m.seconds / float64(m.timed)
	}
	sec := 0.0
	for _, r := range roles {
		if s.Roles[r.Role].Backend == settings.OpenAI {
			sec += r.Calls * GuessCallSeconds
		} else {
			sec += r.Calls * GuessBuiltinCallSeconds
		}
	}
	return sec
}

// cost prices a role's tokens (settings.PriceOf).
func cost(s settings.Settings, r Role) float64 {
	if s.Roles[r.Role].Backend != settings.OpenAI {
		return 0
	}
	prompt, completion := s.PriceOf(r.Role)
	return r.PromptTokens*prompt/1e6 + r.CompletionTokens*completion/1e6
}

// finish sums the conditions and finds the longest chain of dependencies.
func (p *Plan) finish(spec contract.ExperimentSpec) {
	total := map[string]*Role{}
	var order []string
	for _, c := range p.Conditions {
		for _, r := range c.Roles {
			t, ok := total[r.Role]
			if !ok {
				t = &Role{Role: r.Role, Model: r.Model, Source: r.Source}
				total[r.Role] = t
				order = append(order, r.Role)
			}
			if t.Model != r.Model && !strings.Contains(t.Model, r.Model) {
				t.Model += "," + r.Model
			}
			t.Calls += r.Calls
			t.PromptTokens += r.PromptTokens
			t.CompletionTokens += r.CompletionTokens
			t.CostUSD += r.CostUSD
			p.CostUSD += r.CostUSD
		}
	}
	for _, name := range order {
		p.Total = append(p.Total, *total[name])
	}
	p.orderings(spec)
	p.epochs(spec)
	ends := map[string]float64{}
	for i, c := range spec.Conditions {
		if i >= len(p.Conditions) {
			break
		}
		end := p.Conditions[i].WallSeconds + ends[c.Dependency()]
		ends[c.Name] = end
		p.WallSeconds = max(p.WallSeconds, end)
	}
	p.ChainSeconds = p.WallSeconds
}

// Used is the same figures read from a finished experiment's records
// (byCondition: each condition's records, its stream's evaluations
// included): episodes, turns and actions as calls of the roles (a built-in
// role's "calls" are the turns it served), recorded usage and time.
func Used(set bench.Set, spec contract.ExperimentSpec, byCondition map[string][]results.Record) Plan {
	p := Plan{Experiment: spec.Name}
	for i, c := range spec.Conditions {
		s, err := spec.SettingsOf(i)
		if err != nil {
			continue // Validate refused such a spec before it ran
		}
		b, _ := set.Of(s) // nil for a benchmark this build does not have: its shared roles
		cond := Condition{Name: c.Name, Kind: string(c.Kind)}
		var learn, eval means
		for _, r := range byCondition[c.Name] {
			if r.Kind == string(contract.KindStream) {
				learn.add(r)
			} else {
				eval.add(r)
			}
		}
		cond.Episodes, cond.EvalEpisodes = learn.episodes, eval.episodes
		l, e := perEpisode(b, s, learn, true), perEpisode(b, s, eval, false)
		for j := range l {
			r := l[j]
			r.Calls = r.Calls*float64(learn.episodes) + e[j].Calls*float64(eval.episodes)
			r.PromptTokens = r.PromptTokens*float64(learn.episodes) + e[j].PromptTokens*float64(eval.episodes)
			r.CompletionTokens = r.CompletionTokens*float64(learn.episodes) + e[j].CompletionTokens*float64(eval.episodes)
			r.CostUSD = usedCost(byCondition[c.Name], r.Role)
			r.Source = "used"
			cond.Roles = append(cond.Roles, r)
		}
		// Activity time: evaluation episodes overlap as the plan assumes.
		cond.WallSeconds = learn.seconds + eval.seconds/float64(min(orDefault(spec.EvalConcurrency, contract.DefaultEvalConcurrency), evalSlots(b, s)))
		p.Conditions = append(p.Conditions, cond)
	}
	p.finish(spec)
	return p
}

func usedCost(recs []results.Record, role string) float64 {
	c := 0.0
	for _, r := range recs {
		c += r.Usage[role].CostUSD
	}
	return c
}

func orDefault(v, d int) int {
	if v == 0 {
		return d
	}
	return v
}

// ConditionOf is the condition of spec a record belongs to (its stream's
// evaluations included), or "".
func ConditionOf(spec contract.ExperimentSpec, r results.Record) string {
	run := contract.StreamOfRunID(r.Run)
	for _, c := range spec.Conditions {
		if run == spec.RunID(c.Name) {
			return c.Name
		}
	}
	return ""
}

// Compare plans each condition of a finished experiment from the records of
// the others and of earlier runs (never its own: a plan from a run's own
// records would be its use) and reads the use from its own records.
func Compare(set bench.Set, spec contract.ExperimentSpec, recs []results.Record) (planned, used Plan, err error) {
	by := map[string][]results.Record{}
	for _, r := range recs {
		by[ConditionOf(spec, r)] = append(by[ConditionOf(spec, r)], r)
	}
	planned = Plan{Experiment: spec.Name}
	for i, c := range spec.Conditions {
		others := slices.Clone(by[""])      // earlier runs of no condition of spec
		for _, o := range spec.Conditions { // in the spec's order: the same float sums every time
			if o.Name != c.Name {
				others = append(others, by[o.Name]...)
			}
		}
		one := spec
		one.Conditions = []contract.ConditionSpec{c}
		one.Conditions[0].CarryFrom, one.Conditions[0].From = "", "" // planned alone
		if c.Kind == contract.KindStream && c.Memory == contract.MemoryCarry {
			one.Conditions[0].Memory = contract.MemoryEmpty
		}
		one.Conditions[0].Settings = spec.Conditions[i].Settings
		p, err := Experiment(set, one, NewHistory(others))
		if err != nil {
			return Plan{}, Plan{}, err
		}
		planned.Conditions = append(planned.Conditions, p.Conditions...)
		planned.CPUSeconds += p.CPUSeconds
	}
	planned.finish(spec)
	planned.onCores(0)
	return planned, Used(set, spec, by), nil
}

// epochs fills the plan's Epochs from the spec's held-out conditions.
func (p *Plan) epochs(spec contract.ExperimentSpec) {
	e := &EpochsPlan{}
	for i, c := range spec.Conditions {
		if i >= len(p.Conditions) {
			break
		}
		pc := p.Conditions[i]
		e.Total += pc.Episodes + pc.EvalEpisodes
		k := spec.EpochsOf(c)
		if k <= 1 {
			continue
		}
		e.K, e.Conditions = append(e.K, k), append(e.Conditions, c.Name)
		e.Episodes += pc.EvalEpisodes
		for _, r := range pc.Roles {
			e.CostUSD += r.CostUSD
		}
	}
	if len(e.Conditions) > 0 {
		p.Epochs = e
	}
}

// orderings fills the plan's Orderings from the expanded spec.
func (p *Plan) orderings(spec contract.ExperimentSpec) {
	if spec.Orderings <= 1 || !spec.Expanded() {
		return
	}
	o := &OrderingsPlan{N: spec.Orderings}
	for i, c := range spec.Conditions {
		if i >= len(p.Conditions) {
			break
		}
		pc := p.Conditions[i]
		o.Total += pc.Episodes + pc.EvalEpisodes
		if c.Ordering == 0 {
			continue
		}
		if c.Ordering == 1 {
			o.Repeated = append(o.Repeated, c.Name)
		}
		o.Episodes += pc.Episodes + pc.EvalEpisodes
		for _, r := range pc.Roles {
			o.CostUSD += r.CostUSD
		}
	}
	p.Orderings = o
}
