package klinike

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/clinevo/clinevo/benchmarks/klinike/sandbox"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/settings"
)

// Metric names in clinic.Scores.Metrics.
const (
	MetricD      = "d"       // diagnosis gate D
	MetricW      = "w"       // required-tool gate W
	MetricA      = "a"       // action-constraint gate A
	MetricH      = "h"       // must-ask coverage H
	MetricPass   = "pass1"   // strict success s = D·W·A·1[H=1]
	MetricRMulti = "r_multi" // (2D+W+A+H)/5
)

// DiagnosisAt is the diagnosis judge's grade (0–100) at which a recorded
// diagnosis matches the reference or an accepted alternative A(d)
// (KlinikeBench §2.1 and §2.2: D checks "whether the final diagnosis matches
// the reference or an accepted alternative"): the top of the scale, which the
// built-in rubric gives to the reference's or an alternative's own words
// (grader.GradeDiagnosis 1) and the model judge's prompt to "the reference
// diagnosis or a clinically equivalent name". A less specific name (75) does
// not pass; a dangerous alternative grades 0.
const DiagnosisAt = 100

// Gates are the four criteria of one encounter (KlinikeBench §2.2).
type Gates struct {
	D, W, A, H float64
	// Required is the share of required tools called (the paper's "5 / 8");
	// W is 1 only when it is 1.
	Required float64
	// Missing are the required tools never called; Violations the broken
	// action constraints; Topics the must-ask verdicts in order.
	Missing    []string
	Violations []string
	Topics     []bool
	Grade      int // the diagnosis judge's grade, 0–100
}

// Strict is s_i = D_i·W_i·A_i·1[H_i = 1] (KlinikeBench §2.2, eq. 3); strict
// pass@1 is its mean over tasks.
func (g Gates) Strict() float64 {
	if g.H < 1 {
		return 0
	}
	return g.D * g.W * g.A
}

// RMulti is r_multi = (2D + W + A + H) / 5 (KlinikeBench appendix C, eq. 4),
// the multi-gate reward with fractional must-ask coverage.
func (g Gates) RMulti() float64 { return grader.Round4((2*g.D + g.W + g.A + g.H) / 5) }

// executed reports whether the sandbox ran a call (its arguments passed the
// schema): what W and A read. Refused calls never happened (KlinikeBench
// appendix B.1: only accepted calls enter the transcript).
func executed(ev clinic.Event) bool {
	if ev.Action != ToolCall {
		return false
	}
	switch ev.Status {
	case clinic.StatusReturned, clinic.StatusUnavailable, clinic.StatusFinalized:
		return true
	}
	return false
}

// Arguments reads an executed call's arguments as text by name.
func Arguments(c CallFields) map[string]string {
	var m map[string]any
	if err := json.Unmarshal(c.Arguments, &m); err != nil {
		return map[string]string{} // an executed call's arguments are the sandbox's canonical object
	}
	return sandbox.Arguments(m).Strings()
}

// ToolGates computes W and A from the events (KlinikeBench §2.2 and
// appendix B.3): W is 1 when every required tool appears among the executed
// calls; A is 1 when every must-constraint is met by some executed call of
// its tool and no executed call meets a never-constraint: the argument-level
// action constraints and nothing else. A refused call (a forbidden or
// unexposed tool, arguments that break the schema) never ran, so neither gate
// reads it (appendix B.1: the daemon rejects it and only accepted calls enter
// the transcript); it costs a step and counts in R, the refused share
// (docs/benchmarks/klinike-gates.md). The error is a case whose task parts do
// not decode.
func ToolGates(c *clinic.Case, events []clinic.Event) (w, a, required float64, missing, violations []string, err error) {
	if _, err := SandboxOf(c); err != nil {
		return 0, 0, 0, nil, nil, err
	}
	tk, err := ToolKeyOf(c)
	if err != nil {
		return 0, 0, 0, nil, nil, err
	}
	var key ToolKey
	if tk != nil {
		key = *tk
	}
	calls := make([]CallFields, len(events))
	called := map[string]bool{}
	for i, ev := range events {
		if ev.Action == ToolCall {
			calls[i] = CallOf(ev.Ext)
		}
		if executed(ev) {
			called[calls[i].Tool] = true
		}
	}
	for _, t := range key.Required {
		if !called[t] {
			missing = append(missing, t)
		}
	}
	required = 1
	if n := len(key.Required); n > 0 {
		required = grader.Round4(float64(n-len(missing)) / float64(n))
	}
	for _, k := range key.Constraints {
		hit := false
		for i, ev := range events {
			if executed(ev) && calls[i].Tool == k.Tool && sandbox.Meets(k.Arguments, Arguments(calls[i])) {
				hit = true
				break
			}
		}
		switch {
		case k.Rule == RuleMust && !hit:
			violations = append(violations, "missing "+Call{Tool: k.Tool, Arguments: k.Arguments}.String())
		case k.Rule == RuleNever && hit:
			violations = append(violations, "made "+Call{Tool: k.Tool, Arguments: k.Arguments}.String())
		}
	}
	return gate(len(missing) == 0), gate(len(violations) == 0), required, missing, violations, nil
}

// Questions are the questions the patient was asked and answered: what the
// must-ask judge reads.
func Questions(events []clinic.Event) []string {
	var out []string
	for _, ev := range events {
		if ev.Action == clinic.Ask && ev.Status == clinic.StatusReturned {
			out = append(out, ev.Question)
		}
	}
	return out
}

// Coverage is H: the share of must-ask topics the judge finds explicitly
// raised (1 when the task has none).
func Coverage(ctx context.Context, c *clinic.Case, events []clinic.Event, judge MustAskJudge) (float64, []bool, error) {
	topics := c.Manager.MustAsk
	if len(topics) == 0 {
		return 1, nil, nil
	}
	v, err := judge.JudgeMustAsk(ctx, c, topics, Questions(events))
	if err != nil {
		return 0, nil, fmt.Errorf("must-ask judge: %w", err)
	}
	if len(v) != len(topics) {
		return 0, nil, fmt.Errorf("must-ask judge: %d verdicts for %d topics", len(v), len(topics))
	}
	n := 0
	for _, ok := range v {
		if ok {
			n++
		}
	}
	return grader.Round4(float64(n) / float64(len(topics))), v, nil
}

// Diagnosis is D with the judge's grade: 1 when the recorded diagnosis
// grades DiagnosisAt or more. A missing diagnosis is 0 without asking.
func Diagnosis(ctx context.Context, c *clinic.Case, final clinic.FinalOutput, judge grader.DiagnosisJudge) (float64, int, error) {
	if len(final.Diagnosis) == 0 || strings.TrimSpace(final.Diagnosis[0]) == "" {
		return 0, 0, nil
	}
	g, err := judge.JudgeDiagnosis(ctx, c, final.Diagnosis)
	if err != nil {
		return 0, 0, fmt.Errorf("diagnosis judge: %w", err)
	}
	return gate(g.Grade >= DiagnosisAt), g.Grade, nil
}

// Score computes the gates of a finished encounter and its scores; a nil
// judge is the built-in Rubric, and a judge without the diagnosis grade or
// the must-ask verdicts is an error (CheckJudge).
func Score(ctx context.Context, c *clinic.Case, s settings.Settings, events []clinic.Event, final clinic.FinalOutput, run grader.Judge) (clinic.Scores, error) {
	judge, err := judgeOf(s, run)
	if err != nil {
		return clinic.Scores{}, err
	}
	var g Gates
	if g.D, g.Grade, err = Diagnosis(ctx, c, final, judge); err != nil {
		return clinic.Scores{}, err
	}
	if s.Episode.Mode != settings.Static {
		if g.W, g.A, g.Required, g.Missing, g.Violations, err = ToolGates(c, events); err != nil {
			return clinic.Scores{}, err
		}
		if g.H, g.Topics, err = Coverage(ctx, c, events, judge); err != nil {
			return clinic.Scores{}, err
		}
	}
	return Scores(s, events, g), nil
}

// Rescore re-scores a recorded encounter under another judge without
// replaying it. As KlinikeBench §4.1 does for judge substitution, only
// must-ask coverage is judged again; D, W and A stay as they were scored.
func Rescore(ctx context.Context, c *clinic.Case, s settings.Settings, events []clinic.Event, old clinic.Scores, run grader.Judge) (clinic.Scores, error) {
	judge, err := judgeOf(s, run)
	if err != nil {
		return clinic.Scores{}, err
	}
	if s.Episode.Mode == settings.Static || old.Metrics == nil {
		return old, nil // the chart mode has no must-ask gate
	}
	g := Gates{D: old.Metrics[MetricD], W: old.Metrics[MetricW], A: old.Metrics[MetricA], Required: old.Required, Grade: int(math.Round(100 * old.Diagnosis))}
	if g.H, g.Topics, err = Coverage(ctx, c, events, judge); err != nil {
		return clinic.Scores{}, err
	}
	return Scores(s, events, g), nil
}

// Scores turns gates into the shared scores. S is the strict success s_i, so
// that the shared running means, stage curves and paired tests read strict
// pass@1 directly; in the chart mode, which has no tools and no questions, S
// is D, the only gate it defines (KlinikeBench §4 compares diagnosis accuracy
// there). Grade is r_multi on 0–100; Required is the share of required tools
// called; T counts steps, E executed orders, R the share of refused calls.
func Scores(s settings.Settings, events []clinic.Event, g Gates) clinic.Scores {
	sc := clinic.Scores{Diagnosis: float64(g.Grade) / 100, Strict: g.D == 1, Referral: grader.ReferralNotScored,
		MustAsk: g.H, Required: g.Required, T: len(events)}
	calls, refused := 0, 0
	for _, ev := range events {
		sc.Cost += ev.Cost
		if ev.Action != ToolCall {
			continue
		}
		calls++
		if !executed(ev) {
			refused++
		}
		if t, ok := sandbox.Lookup(CallOf(ev.Ext).Tool); ok && t.Kind == sandbox.KindOrder && executed(ev) {
			sc.E++
		}
	}
	sc.Cost = grader.Round4(sc.Cost)
	if calls > 0 {
		sc.R = grader.Round4(float64(refused) / float64(calls))
	}
	if s.Episode.Mode == settings.Static {
		sc.S, sc.Grade = g.D, g.Grade
		sc.MustAsk, sc.Required = 1, 1
		sc.Metrics = map[string]float64{MetricD: g.D}
	} else {
		sc.S, sc.Grade = g.Strict(), int(math.Round(100*g.RMulti()))
		sc.Metrics = map[string]float64{MetricD: g.D, MetricW: g.W, MetricA: g.A, MetricH: g.H, MetricPass: g.Strict(), MetricRMulti: g.RMulti()}
	}
	sc.Pass = sc.S == 1
	return sc
}

func gate(ok bool) float64 {
	if ok {
		return 1
	}
	return 0
}
