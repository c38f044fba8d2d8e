package sdbench

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/clinevo/clinevo/actor"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/llm"
)

var (
	_ llm.DoctorFormat = Benchmark{}
	_ llm.PanelFormat  = Benchmark{}
)

// sdPrompt is what the doctor's and the panel's templates read: the shared
// view with the benchmark's part of it, and what follows from them.
type sdPrompt struct {
	View clinic.DoctorView
	SD   View
	// Ask and Order say which actions the variant allows.
	Ask, Order bool
	// NextVisit is what the next question or examination costs.
	NextVisit float64
	// Budgeted says orders are quoted first; Capped that a budget is
	// enforced, with Left of it remaining.
	Budgeted, Capped bool
	Left             float64
	// Role and Duty are a panel role's (the panel's prompt only).
	Role, Duty string
	Notes      []actor.PanelNote
}

func promptOf(v clinic.DoctorView) sdPrompt {
	sd := ViewOf(v)
	p := sdPrompt{View: v, SD: sd, Ask: slices.Contains(v.Actions, string(clinic.Ask)), Order: slices.Contains(v.Actions, string(clinic.RequestTest)),
		NextVisit: sd.NextVisitUSD(), Budgeted: sd.Variant == Budgeted}
	p.Left, p.Capped = sd.LeftUSD()
	return p
}

// DoctorPrompt renders the SDBench doctor's messages for a view: the
// encounter's rules as the paper states them (§2, §3, appendix A), what the
// doctor has learned, what it has spent and what the next visit costs, the
// budget and the quotes.
func DoctorPrompt(v clinic.DoctorView) ([]llm.Message, error) {
	p := promptOf(v)
	return templates.Render("doctor_sd", p, p)
}

// ModelDoctor is the SDBench doctor on a model (roles.doctor).
type ModelDoctor struct{ C *llm.Client }

var _ actor.Doctor = ModelDoctor{}

// ModelDoctor is the SDBench doctor on c.
func (Benchmark) ModelDoctor(c *llm.Client) actor.Doctor { return ModelDoctor{C: c} }

// doctorReply is a reply: the shared output with the benchmark's members
// beside it, so that the client counts as extra only the members neither
// has.
type doctorReply struct {
	clinic.DoctorOutput
	Output
}

// Decide asks the model for the next action: questions or tests as lists
// (the shared question and test_name are read too), or the diagnosis. One
// repair request for a reply that breaks the format; a reply still
// malformed after it is an llm_error turn.
func (d ModelDoctor) Decide(ctx context.Context, v clinic.DoctorView) (actor.Decision, error) {
	msgs, err := DoctorPrompt(v)
	if err != nil {
		return actor.Decision{}, err
	}
	var out clinic.DoctorOutput
	var r doctorReply
	err = d.C.JSON(ctx, msgs, &r, func() error {
		if err := r.DoctorOutput.Ext.Decode(&r.Output); err != nil {
			return fmt.Errorf("questions and tests must be lists of text: %v", err)
		}
		r.DoctorOutput.Ext = nil
		out = WithOutput(r.DoctorOutput, r.Output)
		return checkReply(&out, v)
	})
	return llm.Decided(out, err)
}

// checkReply validates a reply against the view: an action the variant
// allows, with its questions, its tests or its diagnosis.
func checkReply(out *clinic.DoctorOutput, v clinic.DoctorView) error {
	action, ok := llm.Enum(string(out.Action), v.Actions...)
	if !ok {
		return fmt.Errorf("action %q is not one of %s", out.Action, strings.Join(v.Actions, ", "))
	}
	out.Action = clinic.ActionKind(action)
	switch {
	case out.Action == clinic.Ask && len(Questions(*out)) == 0:
		return errors.New("ASK needs questions")
	case out.Action == clinic.RequestTest && len(Tests(*out)) == 0:
		return errors.New("REQUEST_TEST needs tests")
	case out.Action == clinic.Finalize && len(out.Diagnosis) == 0:
		return errors.New("FINALIZE needs a diagnosis")
	}
	return nil
}

// costDuties are the instructions of the panel roles that weigh SDBench's
// costs (MAI-DxO's Dr Test-Chooser and Dr Stewardship, Nori et al. 2025,
// §3.2), in clinevo's words; the other roles keep the shared panel's
// (llm.PanelDuty).
var costDuties = map[string]string{
	actor.TestChooser: "Propose up to three tests that best separate the leading diagnoses, or the questions still worth asking (up to five): a question is often the cheapest test.",
	actor.Stewardship: "Weigh each proposed test's price against what it would tell and, where there is one, the budget left: list the approved ones in tests and the low-yield or needlessly expensive ones in vetoed; prefer a question or a cheaper test that answers the same thing.",
}

// PanelPrompt renders a panel role's messages from the SDBench view.
func (Benchmark) PanelPrompt(role string, v clinic.DoctorView, notes []actor.PanelNote) ([]llm.Message, error) {
	p := promptOf(v)
	title, duty := llm.PanelDuty(role)
	if title == "" {
		return nil, fmt.Errorf("sdbench panel: no role %q", role)
	}
	if d, ok := costDuties[role]; ok {
		duty = d
	}
	p.Role, p.Duty, p.Notes = title, duty, notes
	return templates.Render("panel_sd", p, p)
}
