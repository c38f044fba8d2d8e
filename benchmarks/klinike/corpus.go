package klinike

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/clinevo/clinevo/benchmarks/klinike/sandbox"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/corpus/synth"
)

// Tool counts a task may expose (KlinikeBench appendix B: 3 to 24 per task).
const (
	MinTools = 3
	MaxTools = 24
)

// ValidateCase checks the KlinikeBench parts of a case, as corpus.FieldError
// naming the field: a sandbox of 3 to 24 registered tools with
// record_diagnosis, and a tool key whose tools are exposed and whose
// constraints name the tools' arguments and allowed values. A case without a
// sandbox exposes record_diagnosis only; the absent findings (Φ⁻ ∩ Φ⁺ = ∅,
// §2.1) are the shared validation's (corpus.Validate).
func (Benchmark) ValidateCase(c *clinic.Case) error {
	fail := func(field, msg string) error { return corpus.FieldError{Field: field, Msg: msg} }
	sb, err := SandboxOf(c)
	if err != nil {
		return fail("exam_view.sandbox", fmt.Sprintf("want an object with tools, forbidden and record: %v", errors.Unwrap(err)))
	}
	key, err := ToolKeyOf(c)
	if err != nil {
		return fail("manager_view.tool_key", fmt.Sprintf("want an object with required_tools and constraints: %v", errors.Unwrap(err)))
	}
	if sb == nil {
		if key != nil {
			return fail("manager_view.tool_key", "a tool key needs exam_view.sandbox")
		}
		return nil
	}
	if n := len(sb.Tools); n < MinTools || n > MaxTools {
		return fail("exam_view.sandbox.tools", fmt.Sprintf("%d tools, want %d to %d", n, MinTools, MaxTools))
	}
	known := strings.Join(sandbox.Names(), ", ")
	for i, t := range sb.Tools {
		field := fmt.Sprintf("exam_view.sandbox.tools[%d]", i)
		switch {
		case !registered(t):
			return fail(field, fmt.Sprintf("unknown tool %q, want one of %s", t, known))
		case slices.Index(sb.Tools, t) != i:
			return fail(field, fmt.Sprintf("tool %q listed twice", t))
		}
	}
	if !slices.Contains(sb.Tools, sandbox.RecordDiagnosis) {
		return fail("exam_view.sandbox.tools", "must include "+sandbox.RecordDiagnosis+", which ends the encounter")
	}
	for i, t := range sb.Forbidden {
		field := fmt.Sprintf("exam_view.sandbox.forbidden[%d]", i)
		switch {
		case !registered(t):
			return fail(field, fmt.Sprintf("unknown tool %q, want one of %s", t, known))
		case t == sandbox.RecordDiagnosis:
			return fail(field, sandbox.RecordDiagnosis+" cannot be forbidden")
		case slices.Contains(sb.Tools, t):
			return fail(field, fmt.Sprintf("%q is also exposed in exam_view.sandbox.tools", t))
		}
	}
	if key == nil {
		return nil
	}
	for i, t := range key.Required {
		field := fmt.Sprintf("manager_view.tool_key.required_tools[%d]", i)
		switch {
		case !registered(t):
			return fail(field, fmt.Sprintf("unknown tool %q, want one of %s", t, known))
		case !slices.Contains(sb.Tools, t):
			return fail(field, fmt.Sprintf("%q is not exposed in exam_view.sandbox.tools", t))
		}
	}
	for i, k := range key.Constraints {
		field := fmt.Sprintf("manager_view.tool_key.constraints[%d]", i)
		tool, ok := sandbox.Lookup(k.Tool)
		switch {
		case !ok:
			return fail(field+".tool", fmt.Sprintf("unknown tool %q, want one of %s", k.Tool, known))
		case k.Rule != RuleMust && k.Rule != RuleNever:
			return fail(field+".rule", fmt.Sprintf("unknown rule %q, want must or never", k.Rule))
		case k.Rule == RuleMust && !slices.Contains(sb.Tools, k.Tool):
			return fail(field+".tool", fmt.Sprintf("%q is not exposed, so the constraint can never be met", k.Tool))
		case len(k.Arguments) == 0:
			return fail(field+".arguments", "at least one argument value is required")
		}
		for _, name := range slices.Sorted(maps.Keys(k.Arguments)) {
			v := k.Arguments[name]
			enum, ok := tool.Property(name)
			switch {
			case !ok:
				return fail(field+".arguments."+name, fmt.Sprintf("%s takes no argument %q", k.Tool, name))
			case strings.TrimSpace(v) == "":
				return fail(field+".arguments."+name, "empty value")
			case strings.ContainsAny(v, ",()=:"):
				return fail(field+".arguments."+name, fmt.Sprintf("value %q holds one of , ( ) = : (values are spelled inside tool(name=value) calls)", v))
			case len(enum) > 0 && !slices.ContainsFunc(enum, func(e string) bool { return strings.EqualFold(e, v) }):
				return fail(field+".arguments."+name, fmt.Sprintf("value %q, want one of %s", v, strings.Join(enum, ", ")))
			}
		}
	}
	return nil
}

func registered(name string) bool {
	_, ok := sandbox.Lookup(name)
	return ok
}

var _ corpus.Builtins = Benchmark{}

// BuiltinSplits are the synthetic tasks: all of them, and the fixed
// train/test split, on generator version 2 (Tasks: 230 tasks, 190/40, every
// test condition also in training) and version 3 (TasksVersion3: 333 tasks,
// 283/50, 42 test tasks on conditions training never shows).
func (Benchmark) BuiltinSplits() map[string][]int {
	out := map[string][]int{}
	for _, s := range Splits {
		out[s] = []int{synth.V2, synth.V3}
	}
	return out
}

// Builtin generates a split of the synthetic tasks.
func (Benchmark) Builtin(split string, version int, seed uint64) ([]clinic.Case, error) {
	if !slices.Contains(Splits, split) {
		return nil, fmt.Errorf("klinike: no split %s", split) // ParseBuiltin checked it
	}
	switch version {
	case synth.V2:
		return Tasks(seed)[split], nil
	case synth.V3:
		return TasksVersion3(seed)[split], nil
	}
	return nil, fmt.Errorf("klinike: no split %s at generator version %d", split, version)
}
