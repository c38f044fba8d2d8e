package klinike

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/clinevo/clinevo/actor"
	"github.com/clinevo/clinevo/benchmarks/klinike/sandbox"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/textmatch"
)

var _ actor.Policy = Benchmark{}

// BuiltinDoctor is the built-in doctor of the tool sandbox (Doctor).
func (Benchmark) BuiltinDoctor() actor.Doctor { return Doctor{} }

// recordTools read the chart: a careful clinician checks them whatever the
// complaint, so the doctor calls the exposed ones without memory too.
var recordTools = []string{"get_patient_info", "get_patient_vitals", "get_patient_allergies", "get_patient_medications", "get_patient_history"}

// The tools the doctor never calls from a card: they end the encounter or
// only record its reasoning.
const (
	toolRecordDiagnosis    = sandbox.RecordDiagnosis
	toolRecordDifferential = "record_differential"
)

// Doctor is the built-in doctor in the tool sandbox: the case-based
// clinician of actor.Builtin reading its cards (actor.CaseState), who takes the
// history its cards or a structured history call for while patient turns and
// steps last, checks the chart, makes the tool calls the leading candidate's
// cards and the CALL rules name (never a drug the chart's allergies name),
// and records its leading diagnosis, keeping a step for it.
type Doctor struct{}

var _ actor.Doctor = Doctor{}

// Decide picks the next step.
func (Doctor) Decide(_ context.Context, v clinic.DoctorView) (actor.Decision, error) {
	kv := ViewOf(v)
	var seen []string
	for _, r := range kv.ToolResults {
		if r.Status == clinic.StatusReturned {
			seen = append(seen, r.Text)
		}
	}
	rd := actor.NewCaseState(v, seen...)
	cands := rd.Rank()
	working := actor.WorkingNames(cands, v)
	var leading string
	var cards []clinic.CardHint
	hasLeading := len(cands) > 0
	if hasLeading {
		leading, cards = cands[0].Name(), cands[0].Cards()
	}
	out := func(o clinic.DoctorOutput) (actor.Decision, error) {
		o.WorkingDiagnoses = working
		return actor.Decision{Output: o}, nil
	}
	callable := map[string]ToolSpec{}
	for _, t := range kv.Tools {
		callable[t.Name] = t
	}
	record := func() (actor.Decision, error) {
		confidence, why := "low", "no similar experience in memory"
		if hasLeading {
			confidence, why = "medium", "closest experience: "+leading
		}
		args, _ := json.Marshal(map[string]string{"diagnosis": working[0], "confidence": confidence, "reasoning": why}) // strings marshal
		o := CallOutput(toolRecordDiagnosis, args)
		o.Rationale, o.CardIDs = []string{why}, actor.CardIDs(cands, 1)
		return out(o)
	}
	if _, ok := callable[toolRecordDiagnosis]; ok && len(callable) == 1 {
		return record() // the chart mode, or the step budget is spent
	}
	plan := callPlan(v, kv, cards, callable)
	canAsk := slices.Contains(v.Actions, string(clinic.Ask))
	for _, t := range rd.TopicPlan(cands) {
		if canAsk && !rd.Asked(t) && kv.StepsLeft > len(plan)+1 {
			return out(clinic.DoctorOutput{Action: clinic.Ask, Topic: t, Question: actor.QuestionFor(t), Utterance: actor.QuestionFor(t),
				Rationale: []string{"history: " + strings.ReplaceAll(t, "_", " ")}, CardIDs: actor.CardIDs(cands, 1)})
		}
	}
	if len(plan) > 0 && kv.StepsLeft > 1 {
		c := plan[0]
		args, _ := json.Marshal(c.Arguments) // strings marshal
		o := CallOutput(c.Tool, args)
		o.Rationale, o.CardIDs = []string{"calling " + c.String()}, actor.CardIDs(cands, 1)
		return out(o)
	}
	return record()
}

// callPlan lists the calls still to make, in order: the chart's record tools,
// then the calls the CALL rules and the leading candidate's cards name. A call
// already made with the same arguments, a tool not exposed, and a
// prescription of a drug the chart's allergies name are left out.
func callPlan(v clinic.DoctorView, kv View, leading []clinic.CardHint, callable map[string]ToolSpec) []Call {
	made := map[string]bool{}
	allergies := ""
	for _, r := range kv.ToolResults {
		if r.Status != clinic.StatusReturned && r.Status != clinic.StatusUnavailable {
			continue
		}
		var args map[string]string
		_ = json.Unmarshal(r.Arguments, &args) // a call whose arguments are not text only is never planned again anyway
		made[Call{Tool: r.Tool, Arguments: args}.String()] = true
		made[r.Tool] = true
		if r.Tool == "get_patient_allergies" {
			allergies = strings.ToLower(r.Text)
		}
	}
	var plan []Call
	add := func(c Call) {
		t, ok := callable[c.Tool]
		if !ok || c.Tool == toolRecordDiagnosis || c.Tool == toolRecordDifferential {
			return
		}
		fill(&c, t)
		key := c.String()
		if made[key] || (len(c.Arguments) == 0 && made[c.Tool]) || slices.ContainsFunc(plan, func(p Call) bool { return p.String() == key }) {
			return
		}
		if drug := strings.ToLower(c.Arguments["drug"]); drug != "" && allergic(drug, allergies) {
			return
		}
		plan = append(plan, c)
	}
	for _, name := range recordTools {
		add(Call{Tool: name, Arguments: map[string]string{}})
	}
	context := textmatch.Set(v.OpeningComplaint)
	for _, r := range v.Rules {
		d, ok := clinic.ParseRule(r)
		if !ok || d.Verb != clinic.VerbCall || (d.When != "" && textmatch.Coverage(textmatch.Set(d.When), context) < 0.5) {
			continue
		}
		if c, err := ParseCall(d.Target); err == nil {
			add(c)
		}
	}
	for _, card := range leading {
		for _, s := range card.Calls {
			if c, err := ParseCall(s); err == nil {
				add(c)
			}
		}
	}
	return plan
}

// allergic reports whether a drug's name holds a word the chart's allergies
// name ("phenoxymethylpenicillin" and "penicillin").
func allergic(drug, allergies string) bool {
	if allergies == "" {
		return false
	}
	for _, w := range strings.Fields(textmatch.Normalize(allergies)) {
		if len(w) >= 6 && strings.Contains(drug, w) {
			return true
		}
	}
	return false
}

// fill gives every argument the tool's schema requires and the call lacks a
// value: the first allowed value, or a neutral phrase for free text.
func fill(c *Call, t ToolSpec) {
	var schema struct {
		Required   []string `json:"required"`
		Properties map[string]struct {
			Type string   `json:"type"`
			Enum []string `json:"enum"`
		} `json:"properties"`
	}
	if json.Unmarshal(t.Parameters, &schema) != nil {
		return // the call goes as it is; the sandbox says what is wrong
	}
	if c.Arguments == nil {
		c.Arguments = map[string]string{}
	}
	for _, name := range schema.Required {
		if c.Arguments[name] != "" {
			continue
		}
		p := schema.Properties[name]
		switch {
		case len(p.Enum) > 0:
			c.Arguments[name] = p.Enum[0]
		case p.Type == "string":
			c.Arguments[name] = "as clinically indicated"
		}
	}
}
