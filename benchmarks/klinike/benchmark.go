package klinike

import (
	"context"
	"math"
	"strconv"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/settings"
)

// Name is the settings value that selects the benchmark.
const Name = "klinike"

// Benchmark is KlinikeBench's environment: patient turns and a tool sandbox
// under a step budget, scored by the gates D, W, A and H and strict pass@1.
type Benchmark struct{}

var _ bench.Benchmark = Benchmark{}

// Name is "klinike".
func (Benchmark) Name() string { return Name }

// Actions are questions to the patient and tool calls; the chart mode, which
// shows the whole intake, takes only the call of record_diagnosis (§4).
func (Benchmark) Actions(s settings.Settings) []clinic.ActionKind {
	if s.Episode.Mode == settings.Static {
		return []clinic.ActionKind{ToolCall}
	}
	return []clinic.ActionKind{clinic.Ask, ToolCall}
}

// Start begins or rebuilds an encounter.
func (Benchmark) Start(c clinic.Case, s settings.Settings, roles episode.Roles, events []clinic.Event) (episode.Env, error) {
	env, err := Restore(c, s, roles, events)
	if err != nil {
		return nil, err
	}
	return env, nil
}

// Score computes the four gates and strict success.
func (Benchmark) Score(ctx context.Context, in bench.ScoreInput) (clinic.Scores, error) {
	final, _ := in.Env.Final()
	return Score(ctx, in.Case, in.Settings, in.Env.Events(), final, in.Judge)
}

// Rescore judges must-ask coverage again and keeps the other gates
// (KlinikeBench §4.1).
func (Benchmark) Rescore(ctx context.Context, c *clinic.Case, s settings.Settings, env episode.Env, old clinic.Scores, judge grader.Judge) (clinic.Scores, error) {
	return Rescore(ctx, c, s, env.Events(), old, judge)
}

// Metrics are the four gates, strict pass@1 and r_multi (KlinikeBench §2.2,
// appendix C); the chart mode defines D alone.
func (Benchmark) Metrics() []bench.Metric {
	inf := math.Inf(1)
	return []bench.Metric{
		{Name: "s", Shared: true, Title: "S", Min: 0, Max: 1, Headline: true, Doc: "the strict success s (§2.2, eq. 3); D in the chart mode"},
		{Name: MetricPass, Title: "strict pass@1", Min: 0, Max: 1, Headline: true, Doc: "s = D·W·A·1[H = 1], averaged over tasks (§2.2, eq. 3)"},
		{Name: MetricD, Title: "D", Min: 0, Max: 1, Headline: true, Doc: "the recorded diagnosis matches the reference or an accepted alternative (§2.2)"},
		{Name: MetricW, Title: "W", Min: 0, Max: 1, Headline: true, Doc: "every required tool was called (§2.2)"},
		{Name: MetricA, Title: "A", Min: 0, Max: 1, Headline: true, Doc: "every argument-level action constraint holds (§2.2, B.3)"},
		{Name: MetricH, Title: "H", Min: 0, Max: 1, Headline: true, Doc: "share of must-ask topics explicitly raised (§2.2, §3.3)"},
		{Name: MetricRMulti, Title: "r_multi", Min: 0, Max: 1, Doc: "(2D + W + A + H)/5 (appendix C, eq. 4)"},
		{Name: "strict", Shared: true, Title: "D", Min: 0, Max: 1, Doc: "D = 1"},
		{Name: "pass", Shared: true, Title: "pass", Min: 0, Max: 1, Doc: "s = 1"},
		{Name: "diagnosis", Shared: true, Title: "grade/100", Min: 0, Max: 1, Doc: "the diagnosis judge's grade over 100"},
		{Name: "grade", Shared: true, Title: "grade", Min: 0, Max: 100, Doc: "round(100·r_multi); the judge's diagnosis grade in the chart mode"},
		{Name: "t", Shared: true, Title: "steps", Min: 0, Max: inf, Direction: bench.LowerBetter, Doc: "agent steps, tool calls included"},
		{Name: "e", Shared: true, Title: "orders", Min: 0, Max: inf, Direction: bench.LowerBetter, Doc: "executed order tools"},
		{Name: "r", Shared: true, Title: "refused", Min: 0, Max: 1, Direction: bench.LowerBetter, Doc: "share of tool calls the sandbox refused"},
		{Name: "cost_usd", Shared: true, Title: "cost USD", Min: 0, Max: inf, Direction: bench.LowerBetter, Doc: "the base cost per step (clinevo's)"},
	}
}

var _ bench.Budgeter = Benchmark{}

// Budgets are the agent steps and patient turns (appendix: 32 and 10); the
// chart mode makes no step but the closing one.
func (Benchmark) Budgets(s settings.Settings) []bench.Budget {
	b, err := BudgetOf(s)
	if err != nil {
		return []bench.Budget{{Name: "budgets", Value: err.Error()}} // validated settings decode; say so rather than guess
	}
	steps := strconv.Itoa(b.MaxSteps)
	switch {
	case s.Episode.Mode == settings.Static:
		steps = "0 (chart mode)"
	case b.MaxSteps == 0:
		steps = "none"
	}
	turns := strconv.Itoa(b.MaxPatientTurns)
	if b.MaxPatientTurns == 0 {
		turns = "none"
	}
	return []bench.Budget{{Name: "steps", Value: steps}, {Name: "patient turns", Value: turns}}
}
