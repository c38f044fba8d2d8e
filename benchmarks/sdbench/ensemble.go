package sdbench

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/clinevo/clinevo/actor"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/textmatch"
)

var _ actor.Composer = Benchmark{}

// ComposeDoctor is the run's doctor, or under the ensemble variant an
// EnsembleDoctor of it.
func (Benchmark) ComposeDoctor(d actor.Doctor, s settings.Settings) actor.Doctor {
	if e, err := EpisodeOf(s); err == nil && e.Variant == Ensemble {
		return EnsembleDoctor{Member: d, Panels: e.Panels}
	}
	return d
}

// EnsembleDoctor is MAI-DxO's ensemble variant: "multiple doctor panels working in
// parallel, with an additional panel to provide a final diagnosis"
// (Nori et al. 2025, §3.2). The paper runs the panels as independent
// encounters and charges the tests of all of them, duplicates once; here
// they share one encounter (clinevo's reading, so that the cost is the
// encounter's): each turn every member decides on what the encounter has
// shown (told which panel it is, so a model samples each anew), and the
// ensemble commits when most of them would, to the diagnosis most of them
// name, else asks every question any of them asks, else orders every test
// any of them orders, each once. Built-in members are deterministic: they
// agree, and the ensemble then plays as one of them.
type EnsembleDoctor struct {
	Member actor.Doctor
	Panels int
}

var _ actor.Doctor = EnsembleDoctor{}

// Decide asks every member and aggregates (aggregate).
func (e EnsembleDoctor) Decide(ctx context.Context, v clinic.DoctorView) (actor.Decision, error) {
	var ds []actor.Decision
	for k := 1; k <= e.Panels; k++ {
		vk := v
		ext := ViewOf(v)
		ext.Panel, ext.Panels = k, e.Panels
		vk.Ext = ext
		d, err := e.Member.Decide(ctx, vk)
		if err != nil {
			return actor.Decision{}, fmt.Errorf("ensemble panel %d: %w", k, err)
		}
		if !d.LLMError {
			ds = append(ds, d)
		}
	}
	if len(ds) == 0 {
		return actor.Decision{LLMError: true}, nil
	}
	return actor.Decision{Output: aggregate(v, ds)}, nil
}

// aggregate is the ensemble's one action from its members' decisions: the
// members' own where they all decide the same.
func aggregate(v clinic.DoctorView, ds []actor.Decision) clinic.DoctorOutput {
	if !slices.ContainsFunc(ds[1:], func(d actor.Decision) bool { return !reflect.DeepEqual(d.Output, ds[0].Output) }) {
		out := ds[0].Output
		out.Rationale = append([]string{fmt.Sprintf("all %d panels agree", len(ds))}, out.Rationale...)
		return out
	}
	out := clinic.DoctorOutput{WorkingDiagnoses: ds[0].Output.WorkingDiagnoses}
	var finals, questions, tests []string
	for i, d := range ds {
		o := d.Output
		out.Rationale = append(out.Rationale, fmt.Sprintf("panel %d: %s", i+1, o.Action))
		switch o.Action {
		case clinic.Finalize:
			if len(o.Diagnosis) > 0 {
				finals = append(finals, o.Diagnosis[0])
			}
		case clinic.Ask:
			questions = appendNew(questions, Questions(o)...)
		case clinic.RequestTest:
			tests = appendNew(tests, Tests(o)...)
		}
	}
	canAsk := len(questions) > 0 && slices.Contains(v.Actions, string(clinic.Ask))
	canOrder := len(tests) > 0 && slices.Contains(v.Actions, string(clinic.RequestTest))
	switch {
	case 2*len(finals) > len(ds) || !canAsk && !canOrder:
		out.Action, out.Diagnosis = clinic.Finalize, []string{vote(finals, out.WorkingDiagnoses)}
	case canAsk:
		out.Action, out.Question = clinic.Ask, strings.Join(questions, "\n")
		out = WithOutput(out, Output{Questions: questions})
	default:
		out.Action, out.TestName = clinic.RequestTest, strings.Join(tests, "; ")
		out = WithOutput(out, Output{Tests: tests})
	}
	return out
}

// appendNew appends the items not yet in xs (after normalisation).
func appendNew(xs []string, items ...string) []string {
	for _, it := range items {
		if !slices.ContainsFunc(xs, func(x string) bool { return textmatch.Normalize(x) == textmatch.Normalize(it) }) {
			xs = append(xs, it)
		}
	}
	return xs
}

// vote is the diagnosis most members name (the first named among equals),
// or the leading working diagnosis where none committed.
func vote(finals, working []string) string {
	best, bestN := "", 0
	for _, f := range finals {
		n := 0
		for _, g := range finals {
			if textmatch.Normalize(g) == textmatch.Normalize(f) {
				n++
			}
		}
		if n > bestN {
			best, bestN = f, n
		}
	}
	if best == "" && len(working) > 0 {
		return working[0]
	}
	return best
}
