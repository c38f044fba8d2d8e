package klinike

import (
	"bytes"
	"encoding/json"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/clinic"
)

var _ bench.Describer = Benchmark{}

// Describe reads a tool call: its target is the tool with its arguments as
// the trace keeps them, "order_imaging {"modality":"CT","region":"abdomen"}";
// the episode page shows the tool that answered, the tool's name and its
// arguments, indented; its step carries the call (the sandbox charges no
// safety cost to a step). Questions, and a call that named no tool, are the
// shared reading's.
func (Benchmark) Describe(ev clinic.Event) bench.Description {
	c := CallOf(ev.Ext)
	if ev.Action != ToolCall {
		return bench.Description{}
	}
	step := bench.SharedStep(ev)
	step.Ext = WithCall(step.Ext, c)
	d := bench.Description{Said: "tool", Step: &step}
	if c.Tool == "" {
		return d
	}
	d.Target, d.Own, d.Name = c.Tool+" "+string(c.Arguments), true, c.Tool
	if len(c.Arguments) > 0 {
		var b bytes.Buffer
		if json.Indent(&b, c.Arguments, "", "  ") == nil {
			d.Detail = b.String()
		} else {
			d.Detail = string(c.Arguments)
		}
	}
	return d
}
