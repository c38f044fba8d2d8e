package gpagent

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/clinevo/clinevo/actor"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/llm"
)

// TagsRepairPrompt is the one repair request after an unusable tags reply.
const TagsRepairPrompt = "Your previous reply could not be used: %s. Reply again with only the <think> block and one <action type=\"...\"> block described above."

// gpPrompt is what the GP doctor's template reads.
type gpPrompt struct {
	View            clinic.DoctorView
	GP              View // the view's workflow part
	Tags            bool
	Actions         []gpActionName // the run's actions, in the paper's order
	Allowed, Masked []string       // by name
	RoundsLeft      int
}

type gpActionName struct{ Name string }

// gpActionOrder is the order of appendix C.1's prompt.
var gpActionOrder = []clinic.ActionKind{clinic.Ask, BodyExam, clinic.RequestTest, Diagnose, Refer, Treat}

// DoctorPrompt renders the GP doctor's messages for a view in a reply format
// (llm.FormatTags or llm.FormatJSON).
func DoctorPrompt(v clinic.DoctorView, format string) ([]llm.Message, error) {
	p := gpPrompt{View: v, GP: ViewOf(v), Tags: format == llm.FormatTags, RoundsLeft: v.MaxTurns - v.Turn}
	for _, k := range gpActionOrder {
		switch {
		case slices.Contains(v.Actions, string(k)):
			p.Allowed = append(p.Allowed, ActionName(k))
		case slices.Contains(p.GP.Masked, string(k)):
			p.Masked = append(p.Masked, ActionName(k))
		default:
			continue
		}
		p.Actions = append(p.Actions, gpActionName{Name: ActionName(k)})
	}
	return templates.Render("doctor_gp", p, p)
}

// ModelDoctor is the model doctor of GPAgentBench's workflow: the GP prompt
// (DoctorPrompt) in the role's reply format, tags or JSON.
type ModelDoctor struct{ C *llm.Client }

var _ actor.Doctor = ModelDoctor{}

// ModelDoctor is the GP doctor on c.
func (Benchmark) ModelDoctor(c *llm.Client) actor.Doctor { return ModelDoctor{C: c} }

// Decide asks for the next action of GPAgentBench's workflow in the role's
// reply format (tags or JSON). An action the workflow masks is a valid reply:
// the environment records it and charges c_workflow. One repair request for a
// real problem; a reply still malformed after it is an llm_error turn.
func (d ModelDoctor) Decide(ctx context.Context, v clinic.DoctorView) (actor.Decision, error) {
	format := d.C.Settings.Format
	msgs, err := DoctorPrompt(v, format)
	if err != nil {
		return actor.Decision{}, err
	}
	var out clinic.DoctorOutput
	if format == llm.FormatTags {
		err = d.C.Exchange(ctx, msgs, func(reply string) error {
			o, extra, err := ParseTags(reply, v)
			d.C.CountExtraFields(ctx, extra)
			out = o
			return err
		}, TagsRepairPrompt)
	} else {
		var r jsonReply
		err = d.C.JSON(ctx, msgs, &r, func() error {
			if err := r.DoctorOutput.Ext.Decode(&r.Output); err != nil {
				return fmt.Errorf("target, reason, destination and urgency must be text: %v", err)
			}
			k, ok := gpAction(string(r.Action), v)
			if !ok {
				return fmt.Errorf("action %q is not one of %s", r.Action, strings.Join(gpNames(v), ", "))
			}
			r.Action = k
			if u := strings.TrimSpace(r.Urgency); u != "" {
				if r.Urgency, ok = ParseUrgency(u); !ok {
					return fmt.Errorf("urgency %q is not routine, urgent or emergency", u)
				}
			}
			// The output keeps the workflow's fields, not the other
			// members a reply may hold (counted as extra fields).
			r.DoctorOutput.Ext = nil
			out = WithOutput(r.DoctorOutput, r.Output)
			return gpRequired(out, v)
		})
	}
	return llm.Decided(out, err)
}

// jsonReply is a reply in the JSON format: the shared output with the
// workflow's own fields beside it, so that the client counts as extra only
// the fields neither has. It decodes as the shared output does (its members
// beyond the shared ones land in DoctorOutput.Ext), and Decide reads the
// workflow's fields from there.
type jsonReply struct {
	clinic.DoctorOutput
	Output
}

// gpSynonyms are other names models give the actions: appendix C.1's own
// lists say "diagnosis" and "treatment".
var gpSynonyms = map[string]clinic.ActionKind{"diagnosis": Diagnose, "treatment": Treat, "referral": Refer,
	"exam": BodyExam, "examination": BodyExam, "physical_exam": BodyExam, "order_test": clinic.RequestTest}

// gpAction reads an action name (any case, a synonym) among the view's
// allowed and masked actions.
func gpAction(name string, v clinic.DoctorView) (clinic.ActionKind, bool) {
	n := strings.ToLower(strings.TrimSpace(name))
	k, ok := ActionNamed(n)
	if !ok {
		k, ok = gpSynonyms[n]
	}
	if !ok || !(slices.Contains(v.Actions, string(k)) || slices.Contains(ViewOf(v).Masked, string(k))) {
		return "", false
	}
	return k, true
}

func gpNames(v clinic.DoctorView) []string {
	var out []string
	for _, k := range gpActionOrder {
		if slices.Contains(v.Actions, string(k)) || slices.Contains(ViewOf(v).Masked, string(k)) {
			out = append(out, ActionName(k))
		}
	}
	return out
}

// gpRequired names the missing field of an allowed action; a masked action
// needs none, the environment refuses it whatever it holds.
func gpRequired(o clinic.DoctorOutput, v clinic.DoctorView) error {
	if !slices.Contains(v.Actions, string(o.Action)) {
		return nil
	}
	missing, x := "", OutputOf(o)
	switch o.Action {
	case clinic.Ask:
		if strings.TrimSpace(o.Question) == "" {
			missing = "the question"
		}
	case BodyExam:
		if strings.TrimSpace(x.Target) == "" {
			missing = "Target"
		}
	case clinic.RequestTest:
		if strings.TrimSpace(o.TestName) == "" {
			missing = "Test"
		}
	case Diagnose:
		if len(nonBlank(o.Diagnosis)) == 0 {
			missing = "Diagnosis"
		}
	case Refer:
		switch {
		case strings.TrimSpace(x.Destination) == "":
			missing = "Destination"
		case strings.TrimSpace(x.Urgency) == "":
			missing = "Urgency"
		}
	case Treat:
		if len(nonBlank(o.Plan)) == 0 {
			missing = "Plan"
		}
	}
	if missing != "" {
		return fmt.Errorf("%s needs %s", ActionName(o.Action), missing)
	}
	return nil
}

func nonBlank(xs []string) []string {
	var out []string
	for _, x := range xs {
		if strings.TrimSpace(x) != "" {
			out = append(out, x)
		}
	}
	return out
}

var (
	actionOpen = regexp.MustCompile(`(?is)<action\s+type\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))\s*>`)
	actionEnd  = regexp.MustCompile(`(?i)</action\s*>`)
	thinkBlock = regexp.MustCompile(`(?is)<think>(.*?)(?:</think>|$)`)
	fieldLine  = regexp.MustCompile(`^\s*(?:[-*]\s*)?\**([A-Za-z][A-Za-z _]{0,20}?)\**\s*:\s*(.*)$`)
	bullet     = regexp.MustCompile(`^\s*(?:[-*•]|\d+[.)])\s+`)
)

// gpFields are the fields each action's block may hold (appendix C.1).
var gpFields = map[clinic.ActionKind][]string{
	clinic.Ask:         {"question"},
	BodyExam:           {"target", "reason"},
	clinic.RequestTest: {"test", "reason"},
	Diagnose:           {"diagnosis", "rationale"},
	Refer:              {"destination", "urgency", "reason"},
	Treat:              {"diagnosis", "plan"},
}

// ParseTags reads a reply in GPAgentBench's action format (appendix C.1):
// reasoning in <think>…</think>, then one <action type="…">…</action> whose
// body holds the action's fields as "Name: value" lines (an ask's body is the
// question). It reads replies as models write them: the first action block
// counts, whatever surrounds it; the type and field names match in any case;
// the type may be a synonym ("diagnosis", "treatment"); quotes around the
// type are optional; a missing </action> or </think> closes at the end; a
// field runs on over the lines that follow it; plan items come one a line or
// separated by semicolons. A field the action does not have is ignored and
// counted (extra). The problems worth a repair request: no action block, a
// type outside the view's actions, a missing required field, an urgency
// outside routine, urgent and emergency.
func ParseTags(reply string, v clinic.DoctorView) (out clinic.DoctorOutput, extra int, err error) {
	loc := actionOpen.FindStringSubmatchIndex(reply)
	if loc == nil {
		return out, 0, errors.New(`no <action type="..."> block in the reply`)
	}
	name := ""
	for g := 1; g <= 3; g++ {
		if loc[2*g] >= 0 {
			name = reply[loc[2*g]:loc[2*g+1]]
		}
	}
	k, ok := gpAction(name, v)
	if !ok {
		return out, 0, fmt.Errorf("action type %q is not one of %s", name, strings.Join(gpNames(v), ", "))
	}
	out.Action = k
	body := reply[loc[1]:]
	if end := actionEnd.FindStringIndex(body); end != nil {
		body = body[:end[0]]
	}
	if m := thinkBlock.FindStringSubmatch(reply[:loc[0]]); m != nil {
		if t := strings.TrimSpace(m[1]); t != "" {
			out.Rationale = []string{t}
		}
	}
	fields, order := map[string][]string{}, []string{}
	current := ""
	for _, line := range strings.Split(body, "\n") {
		if m := fieldLine.FindStringSubmatch(line); m != nil {
			current = strings.ToLower(strings.ReplaceAll(strings.TrimSpace(m[1]), " ", "_"))
			if _, seen := fields[current]; !seen {
				order = append(order, current)
			}
			fields[current] = append(fields[current], strings.TrimSpace(m[2]))
			continue
		}
		if t := strings.TrimSpace(line); t != "" {
			fields[current] = append(fields[current], t)
			if current == "" && !slices.Contains(order, "") {
				order = append(order, "")
			}
		}
	}
	known := gpFields[k]
	for _, f := range order {
		if f != "" && !slices.Contains(known, f) {
			extra++
		}
	}
	text := func(f string) string { return strings.Join(nonBlank(fields[f]), " ") }
	var x Output
	switch k {
	case clinic.Ask:
		out.Question = text("question")
		if out.Question == "" {
			out.Question = text("")
		}
	case BodyExam:
		x.Target, x.Reason = text("target"), text("reason")
	case clinic.RequestTest:
		out.TestName, x.Reason = text("test"), text("reason")
	case Diagnose:
		if d := text("diagnosis"); d != "" {
			out.Diagnosis = []string{d}
		}
		if r := text("rationale"); r != "" {
			out.Rationale = append(out.Rationale, r)
		}
	case Refer:
		x.Destination, x.Reason = text("destination"), text("reason")
		if u := text("urgency"); u != "" {
			if x.Urgency, ok = ParseUrgency(u); !ok {
				return out, extra, fmt.Errorf("urgency %q is not routine, urgent or emergency", u)
			}
		}
	case Treat:
		if d := text("diagnosis"); d != "" {
			out.Diagnosis = []string{d}
		}
		out.Plan = items(fields["plan"])
	}
	out = WithOutput(out, x)
	return out, extra, gpRequired(out, v)
}

// items splits a plan into items: one a line (bullets and numbers dropped),
// and a single line at its semicolons.
func items(lines []string) []string {
	var out []string
	for _, l := range lines {
		l = bullet.ReplaceAllString(l, "")
		parts := []string{l}
		if len(lines) == 1 {
			parts = strings.Split(l, ";")
		}
		for _, p := range parts {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}
