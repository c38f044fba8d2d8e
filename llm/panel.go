package llm

import (
	"context"
	"errors"
	"strings"

	"github.com/clinevo/clinevo/actor"
	"github.com/clinevo/clinevo/clinic"
)

// PanelMember is one role of the panel doctor on a model (settings
// doctor.mode: panel with a model doctor): its client is the doctor's
// endpoint under the role name doctor.<role>, so a run's model use is
// counted per panel role.
type PanelMember struct {
	C    *Client
	Role string
	// Prompt renders the role's messages: a benchmark's panel prompt
	// (PanelFormat); nil is the shared one.
	Prompt func(role string, v clinic.DoctorView, notes []actor.PanelNote) ([]Message, error)
}

var _ actor.PanelMember = PanelMember{}

// panelDuties are each role's instructions (MAI-DxO's five roles, Nori et
// al. 2025, MAI-DxO), in clinevo's words.
var panelDuties = map[string][2]string{
	actor.Hypothesis:  {"Dr Hypothesis", "Keep a ranked differential of the three most likely diagnoses, updated with every finding, and set ready to true (with the diagnosis) only when the leading one is well supported."},
	actor.TestChooser: {"Dr Test-Chooser", "Propose up to three tests that best separate the leading diagnoses, or the questions still worth asking the patient."},
	actor.Challenger:  {"Dr Challenger", "Argue against the leading diagnosis: name the alternative it may be anchoring away from, and at most one test that could falsify the lead."},
	actor.Stewardship: {"Dr Stewardship", "Approve only the tests worth their cost: list the approved ones in tests and the low-yield or needlessly expensive ones in vetoed; prefer a cheaper test that answers the same question."},
	actor.Checklist:   {"Dr Checklist", "Check the panel's proposal before it goes out: list in tests the approved tests with valid, specific names, and in questions the questions still to ask; drop anything already asked or done."},
}

// PanelDuty is a panel role's title and instructions in the shared panel
// prompt; empty for a role the panel does not have.
func PanelDuty(role string) (title, duty string) {
	d := panelDuties[role]
	return d[0], d[1]
}

type panelReply struct {
	Differential []string `json:"differential"`
	Ready        bool     `json:"ready"`
	Tests        []string `json:"tests"`
	Questions    []string `json:"questions"`
	Vetoed       []string `json:"vetoed"`
	Diagnosis    string   `json:"diagnosis"`
	Reason       string   `json:"reason"`
}

// PanelDoctor is the panel on model clients, one per role, with base the
// doctor it defers to where the panel's action is not allowed.
func PanelDoctor(clients map[string]*Client, base actor.Doctor) actor.Panel {
	m := map[string]actor.PanelMember{}
	for role, c := range clients {
		m[role] = PanelMember{C: c, Role: role}
	}
	return actor.Panel{Members: m, Base: base}
}

// PanelFormat is a benchmark's model panel prompt (a capability): a panel
// role's messages rendered from the benchmark's own view; the reply is the
// shared panel note. A benchmark without one plays the shared panel prompt.
type PanelFormat interface {
	PanelPrompt(role string, v clinic.DoctorView, notes []actor.PanelNote) ([]Message, error)
}

// PanelDoctorFor is the panel on model clients under benchmark b: its
// members render b's panel prompt where b has one.
func PanelDoctorFor(b any, clients map[string]*Client, base actor.Doctor) actor.Panel {
	p := PanelDoctor(clients, base)
	if f, ok := b.(PanelFormat); ok {
		for role, m := range p.Members {
			pm := m.(PanelMember)
			pm.Prompt = f.PanelPrompt
			p.Members[role] = pm
		}
	}
	return p
}

// panelPrompt renders the shared panel prompt of a role.
func panelPrompt(role string, v clinic.DoctorView, notes []actor.PanelNote) ([]Message, error) {
	duty := panelDuties[role]
	return Render("panel", struct{ Title, Duty string }{duty[0], duty[1]}, struct {
		View  clinic.DoctorView
		Notes []actor.PanelNote
	}{v, notes})
}

// Deliberate asks the role's model for its note; a reply still malformed
// after repair is an empty note with the reason saying so, and the panel
// goes on.
func (p PanelMember) Deliberate(ctx context.Context, v clinic.DoctorView, notes []actor.PanelNote) (actor.PanelNote, error) {
	prompt := p.Prompt
	if prompt == nil {
		prompt = panelPrompt
	}
	msgs, err := prompt(p.Role, v, notes)
	if err != nil {
		return actor.PanelNote{}, err
	}
	var r panelReply
	err = p.C.JSON(ctx, msgs, &r, func() error {
		if p.Role == actor.Hypothesis && len(r.Differential) == 0 {
			return errors.New("differential is empty: give the ranked differential")
		}
		if r.Ready && strings.TrimSpace(r.Diagnosis) == "" && len(r.Differential) == 0 {
			return errors.New("ready needs a diagnosis")
		}
		return nil
	})
	if IsMalformed(err) {
		return actor.PanelNote{Reason: "no usable reply"}, nil
	}
	if err != nil {
		return actor.PanelNote{}, err
	}
	n := actor.PanelNote{Differential: r.Differential, Ready: r.Ready, Tests: r.Tests, Questions: r.Questions, Vetoed: r.Vetoed, Reason: r.Reason}
	if p.Role == actor.Hypothesis {
		dx := strings.TrimSpace(r.Diagnosis)
		if dx == "" && len(r.Differential) > 0 {
			dx = r.Differential[0]
		}
		n.Final = &clinic.DoctorOutput{Action: clinic.Finalize, Diagnosis: []string{dx}}
	}
	return n, nil
}
