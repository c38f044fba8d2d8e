package ddxplus

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"strings"

	"github.com/clinevo/clinevo/actor"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/llm"
)

//go:embed prompts/*.tmpl
var promptFiles embed.FS

// templates are the benchmark's prompt templates with the versions runs log.
var templates = llm.MustTemplates(promptFiles, "prompts", map[string]string{"doctor_ddxplus": "doctor_ddxplus/1"})

var (
	_ llm.DoctorFormat = Benchmark{}
	_ llm.Prompts      = Benchmark{}
)

// Templates: the model doctor renders doctor_ddxplus; the other roles are
// not called (the environment answers from the case, the score needs no judge).
func (Benchmark) Templates(role string) []string {
	if role == "doctor" {
		return []string{templates.Version("doctor_ddxplus")}
	}
	return nil
}

// doctorPrompt is what the doctor's template reads.
type doctorPrompt struct {
	View     clinic.DoctorView
	Stream   bool
	Options  []string // "<number>. <pathology>", numbered from 0 as StreamBench's code does
	Feedback bool     // some card says whether its answer was right
}

// DoctorPrompt renders the model doctor's messages for a view: StreamBench's
// setting (appendix F.3.2: the profile, every pathology numbered, the answer
// as "<number>. <diagnosis>", earlier patients as examples when the learning
// method retrieved some), in clinevo's words; interactively the opening
// complaint and the conversation instead of the profile.
func DoctorPrompt(v clinic.DoctorView) ([]llm.Message, error) {
	x := ViewOf(v)
	p := doctorPrompt{View: v, Stream: x.Mode == ModeStream}
	for i, o := range x.Options {
		p.Options = append(p.Options, fmt.Sprintf("%d. %s", i, o))
	}
	for _, c := range v.Cards {
		p.Feedback = p.Feedback || c.Avoid != "" || strings.Contains(c.Text, "feedback")
	}
	return templates.Render("doctor_ddxplus", p, p)
}

// ModelDoctor is the model doctor of DDXPlus: DoctorPrompt, a JSON reply.
type ModelDoctor struct{ C *llm.Client }

var _ actor.Doctor = ModelDoctor{}

// ModelDoctor is the DDXPlus doctor on c.
func (Benchmark) ModelDoctor(c *llm.Client) actor.Doctor { return ModelDoctor{C: c} }

// Decide asks the model for the next action. A reply still malformed after
// the one repair request is an llm_error turn; an answer that names none of
// the pathologies is a valid reply, scored as wrong (StreamBench counts an
// unreadable label as incorrect).
func (d ModelDoctor) Decide(ctx context.Context, v clinic.DoctorView) (actor.Decision, error) {
	msgs, err := DoctorPrompt(v)
	if err != nil {
		return actor.Decision{}, err
	}
	var out clinic.DoctorOutput
	err = d.C.JSON(ctx, msgs, &out, func() error {
		action, ok := llm.Enum(string(out.Action), v.Actions...)
		if !ok {
			return fmt.Errorf("action %q is not one of %s", out.Action, strings.Join(v.Actions, ", "))
		}
		out.Action = clinic.ActionKind(action)
		switch {
		case out.Action == clinic.Ask && strings.TrimSpace(out.Question) == "":
			return errors.New("ASK needs a question")
		case out.Action == clinic.Finalize && len(episode.Named(out.Diagnosis)) == 0:
			return errors.New("FINALIZE needs a diagnosis: <number>. <pathology>")
		}
		return nil
	})
	return llm.Decided(out, err)
}
