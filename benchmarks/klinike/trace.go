package klinike

import (
	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
)

var _ episode.Targets = Benchmark{}

// Target is what a tool call was about: the tool with its arguments as the
// trace keeps them, "order_imaging {"modality":"CT","region":"abdomen"}".
// Questions, and a call that named no tool, are the shared reading's.
func (Benchmark) Target(ev clinic.Event) (string, bool) {
	c := CallOf(ev.Ext)
	if ev.Action != ToolCall || c.Tool == "" {
		return "", false
	}
	return c.Tool + " " + string(c.Arguments), true
}

var _ analysis.Trajectory = Benchmark{}

// StepOf is the step of an event with a tool call's tool and arguments; the
// sandbox charges no safety cost to a step.
func (Benchmark) StepOf(ev clinic.Event) (clinic.DoctorOutput, float64) {
	a := analysis.SharedStep(ev)
	if ev.Action == ToolCall {
		a.Ext = WithCall(a.Ext, CallOf(ev.Ext))
	}
	return a, 0
}
