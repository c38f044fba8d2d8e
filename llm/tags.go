package llm

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/clinevo/clinevo/actor"
	"github.com/clinevo/clinevo/clinic"
)

// Reply formats of a role (settings roles.<role>.format).
const (
	FormatJSON = "json"
	FormatTags = "tags" // GPAgentBench's <think>…</think><action type="…">…</action> (appendix C.1)
)

// TagsRepairPrompt is the one repair request after an unusable tags reply.
const TagsRepairPrompt = "Your previous reply could not be used: %s. Reply again with only the <think> block and one <action type=\"...\"> block described above."

// gpView reports whether a view is GPAgentBench's workflow (a workflow state
// and one of its own actions offered or masked).
func gpView(v clinic.DoctorView) bool {
	if v.Phase == "" {
		return false
	}
	for _, a := range append(slices.Clone(v.Actions), v.Masked...) {
		if clinic.ActionKind(a) == clinic.Diagnose {
			return true
		}
	}
	return false
}

// gpPrompt is what the GP doctor's template reads.
type gpPrompt struct {
	View            clinic.DoctorView
	Tags            bool
	Actions         []gpActionName // the run's actions, in the paper's order
	Allowed, Masked []string       // by name
	RoundsLeft      int
}

type gpActionName struct{ Name string }

// gpActionOrder is the order of appendix C.1's prompt.
var gpActionOrder = []clinic.ActionKind{clinic.Ask, clinic.BodyExam, clinic.RequestTest, clinic.Diagnose, clinic.Refer, clinic.Treat}

// GPDoctorPrompt renders the GP doctor's messages for a view in a reply format.
func GPDoctorPrompt(v clinic.DoctorView, format string) ([]Message, error) {
	p := gpPrompt{View: v, Tags: format == FormatTags, RoundsLeft: v.MaxTurns - v.Turn}
	for _, k := range gpActionOrder {
		switch {
		case slices.Contains(v.Actions, string(k)):
			p.Allowed = append(p.Allowed, k.Name())
		case slices.Contains(v.Masked, string(k)):
			p.Masked = append(p.Masked, k.Name())
		default:
			continue
		}
		p.Actions = append(p.Actions, gpActionName{Name: k.Name()})
	}
	return Render("doctor_gp", p, p)
}

// decideGP asks for the next action of GPAgentBench's workflow in the role's
// reply format (tags or JSON). An action the workflow masks is a valid reply:
// the environment records it and charges c_workflow. One repair request for a
// real problem; a reply still malformed after it is an llm_error turn.
func (d Doctor) decideGP(ctx context.Context, v clinic.DoctorView) (actor.Decision, error) {
	format := d.C.Settings.Format
	msgs, err := GPDoctorPrompt(v, format)
	if err != nil {
		return actor.Decision{}, err
	}
	var out clinic.DoctorOutput
	if format == FormatTags {
		err = d.C.exchange(ctx, msgs, func(reply string) error {
			o, extra, err := ParseTags(reply, v)
			if extra > 0 {
				if m := meter(ctx); m != nil {
					m.Add(Usage{Role: d.C.Role, ExtraFields: extra})
				}
			}
			out = o
			return err
		}, TagsRepairPrompt)
	} else {
		err = d.C.JSON(ctx, msgs, &out, func() error {
			k, ok := gpAction(string(out.Action), v)
			if !ok {
				return fmt.Errorf("action %q is not one of %s", out.Action, strings.Join(gpNames(v), ", "))
			}
			out.Action = k
			if u := strings.TrimSpace(out.Urgency); u != "" {
				if out.Urgency, ok = clinic.ParseUrgency(u); !ok {
					return fmt.Errorf("urgency %q is not routine, urgent or emergency", u)
				}
			}
			return gpRequired(out, v)
		})
	}
	return Decided(out, err)
}

// gpSynonyms are other names models give the actions: appendix C.1's own
// lists say "diagnosis" and "treatment".
var gpSynonyms = map[string]clinic.ActionKind{"diagnosis": clinic.Diagnose, "treatment": clinic.Treat, "referral": clinic.Refer,
	"exam": clinic.BodyExam, "examination": clinic.BodyExam, "physical_exam": clinic.BodyExam, "order_test": clinic.RequestTest}

// gpAction reads an action name (any case, a synonym) among the view's
// allowed and masked actions.
func gpAction(name string, v clinic.DoctorView) (clinic.ActionKind, bool) {
	n := strings.ToLower(strings.TrimSpace(name))
	k, ok := clinic.ActionNamed(n)
	if !ok {
		k, ok = gpSynonyms[n]
	}
	if !ok || !(slices.Contains(v.Actions, string(k)) || slices.Contains(v.Masked, string(k))) {
		return "", false
	}
	return k, true
}

func gpNames(v clinic.DoctorView) []string {
	var out []string
	for _, k := range gpActionOrder {
		if slices.Contains(v.Actions, string(k)) || slices.Contains(v.Masked, string(k)) {
			out = append(out, k.Name())
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
	missing := ""
	switch o.Action {
	case clinic.Ask:
		if strings.TrimSpace(o.Question) == "" {
			missing = "the question"
		}
	case clinic.BodyExam:
		if strings.TrimSpace(o.Target) == "" {
			missing = "Target"
		}
	case clinic.RequestTest:
		if strings.TrimSpace(o.TestName) == "" {
			missing = "Test"
		}
	case clinic.Diagnose:
		if len(nonBlank(o.Diagnosis)) == 0 {
			missing = "Diagnosis"
		}
	case clinic.Refer:
		switch {
		case strings.TrimSpace(o.Destination) == "":
			missing = "Destination"
		case strings.TrimSpace(o.Urgency) == "":
			missing = "Urgency"
		}
	case clinic.Treat:
		if len(nonBlank(o.Plan)) == 0 {
			missing = "Plan"
		}
	}
	if missing != "" {
		return fmt.Errorf("%s needs %s", o.Action.Name(), missing)
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
	clinic.BodyExam:    {"target", "reason"},
	clinic.RequestTest: {"test", "reason"},
	clinic.Diagnose:    {"diagnosis", "rationale"},
	clinic.Refer:       {"destination", "urgency", "reason"},
	clinic.Treat:       {"diagnosis", "plan"},
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
	switch k {
	case clinic.Ask:
		out.Question = text("question")
		if out.Question == "" {
			out.Question = text("")
		}
	case clinic.BodyExam:
		out.Target, out.Reason = text("target"), text("reason")
	case clinic.RequestTest:
		out.TestName, out.Reason = text("test"), text("reason")
	case clinic.Diagnose:
		if d := text("diagnosis"); d != "" {
			out.Diagnosis = []string{d}
		}
		if r := text("rationale"); r != "" {
			out.Rationale = append(out.Rationale, r)
		}
	case clinic.Refer:
		out.Destination, out.Reason = text("destination"), text("reason")
		if u := text("urgency"); u != "" {
			if out.Urgency, ok = clinic.ParseUrgency(u); !ok {
				return out, extra, fmt.Errorf("urgency %q is not routine, urgent or emergency", u)
			}
		}
	case clinic.Treat:
		if d := text("diagnosis"); d != "" {
			out.Diagnosis = []string{d}
		}
		out.Plan = items(fields["plan"])
	}
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
