package analysis

import (
	"bytes"
	"encoding/json"
	"html/template"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/clinic"
)

// Section is a benchmark's own part of a report (a capability): built from
// the report's input and its shared numbers, it is kept in report.json under
// key (no member when data is nil) and shown on the page as html.
type Section interface {
	Section(in Input, rep Report) (key string, data any, html template.HTML)
}

// Trajectory is a benchmark's reading of an event as a step of a constrained
// MDP (a capability): the action as the doctor gave it, and the step's
// safety cost (a protocol penalty charged to it). Without one, a step is the
// question-and-test environment's action with no safety cost.
type Trajectory interface {
	StepOf(ev clinic.Event) (action clinic.DoctorOutput, safetyCost float64)
}

// section is a benchmark's part of a built report.
type section struct {
	Key  string
	Data any
	HTML template.HTML
}

// benchOf is the benchmark a condition's runs were played in; nil for one
// this build does not have (its report holds the shared numbers only).
func benchOf(profile string) bench.Benchmark {
	b, err := bench.Get(profile)
	if err != nil {
		return nil
	}
	return b
}

// definesU reports whether a benchmark declares the utility U.
func definesU(profile string) bool {
	if profile == "" {
		return true // records of runs before profiles: MedEvoEval's
	}
	b := benchOf(profile)
	return b != nil && bench.Declares(b.Metrics(), "u")
}

// sections are the report's benchmark sections: one per benchmark its
// conditions play that has a Section, in condition order.
func sections(in Input, rep Report) []section {
	var out []section
	seen := map[string]bool{}
	for _, c := range rep.Conditions {
		b := benchOf(c.Profile)
		if b == nil || seen[b.Name()] {
			continue
		}
		seen[b.Name()] = true
		if s, ok := b.(Section); ok {
			key, data, html := s.Section(in, rep)
			out = append(out, section{Key: key, Data: data, HTML: html})
		}
	}
	return out
}

// MarshalJSON writes the report with each benchmark section's data as a
// member of its own.
func (r Report) MarshalJSON() ([]byte, error) {
	type plain Report
	b, err := json.Marshal(plain(r))
	if err != nil {
		return nil, err
	}
	var extra []section
	for _, s := range r.sections {
		if s.Data != nil {
			extra = append(extra, s)
		}
	}
	if len(extra) == 0 {
		return b, nil
	}
	var buf bytes.Buffer
	buf.Write(b[:len(b)-1])
	for _, s := range extra {
		kb, _ := json.Marshal(s.Key) // a string always marshals
		db, err := json.Marshal(s.Data)
		if err != nil {
			return nil, err
		}
		buf.WriteByte(',')
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(db)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// stepOf is b's reading of an event as a step.
func stepOf(b any, ev clinic.Event) (clinic.DoctorOutput, float64) {
	if t, ok := b.(Trajectory); ok {
		return t.StepOf(ev)
	}
	return SharedStep(ev), 0
}

// SharedStep is the question-and-test environment's reading of an event as
// the action the doctor gave: what a benchmark's Trajectory adds its own
// fields to.
func SharedStep(ev clinic.Event) clinic.DoctorOutput {
	a := clinic.DoctorOutput{Action: ev.Action, Question: ev.Question, TestName: ev.Test, Rationale: ev.Rationale, WorkingDiagnoses: ev.WorkingDiagnoses}
	if ev.Final != nil {
		a.Diagnosis, a.Evidence, a.Plan, a.Followup = ev.Final.Diagnosis, ev.Final.Evidence, ev.Final.Plan, ev.Final.Followup
	}
	return a
}

// SectionData is the data of the benchmark section kept under key (what
// report.json holds there), nil without one.
func (r Report) SectionData(key string) any {
	for _, s := range r.sections {
		if s.Key == key {
			return s.Data
		}
	}
	return nil
}
