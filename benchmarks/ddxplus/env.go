package ddxplus

import (
	"context"
	"fmt"
	"strings"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/settings"
)

// View is the benchmark's part of the doctor's view: the mode, the 49
// pathologies to choose among (StreamBench §3.2 and appendix F.3.2 show
// every option), and the patient's evidences the doctor knows so far, as
// structured findings (the whole profile in stream mode; the initial
// evidence and every evidence the patient confirmed in interactive mode).
type View struct {
	Mode     string    `json:"mode"`
	Options  []string  `json:"options"`
	Findings []Finding `json:"findings"`
}

// DoctorViewExt marks View as the doctor's.
func (View) DoctorViewExt() {}

// ViewOf is a view's own part; the zero View for another benchmark's view.
func ViewOf(v clinic.DoctorView) View {
	x, _ := v.Ext.(View)
	return x
}

// Env is one DDXPlus encounter in progress. Its state is its events: an
// answer depends only on the question and the case, so Start rebuilds it
// from them without calling any role.
type Env struct {
	c    clinic.Case
	cfg  settings.Episode
	mode string
	rec  Record
	dict *Dictionary
	episode.Log
}

var _ episode.Env = (*Env)(nil)

// Start begins an encounter of c, or rebuilds one from its events.
func Start(c clinic.Case, s settings.Settings, events []clinic.Event) (*Env, error) {
	ep, err := EpisodeOf(s)
	if err != nil {
		return nil, err
	}
	d, err := Embedded()
	if err != nil {
		return nil, err
	}
	e := &Env{c: c, cfg: s.Episode, mode: ep.Mode, rec: RecordOf(&c), dict: d}
	for _, ev := range events {
		e.apply(ev)
	}
	return e, nil
}

// actions are the mode's: the profile is whole in stream mode, so the
// doctor only answers.
func (e *Env) actions() []clinic.ActionKind {
	if e.mode == ModeStream {
		return []clinic.ActionKind{clinic.Finalize}
	}
	return []clinic.ActionKind{clinic.Ask, clinic.Finalize}
}

// Profile is a patient's whole evidence profile as one text: the vignette
// of stream mode, a line for the patient and one for each evidence.
func Profile(dm clinic.Demographics, fs []Finding) string {
	lines := []string{"Patient: " + dm.Text + "."}
	for _, f := range fs {
		lines = append(lines, f.Line())
	}
	return strings.Join(lines, "\n")
}

// View is the doctor's input in the run's mode.
func (e *Env) View(cards []clinic.CardHint, rules []string) clinic.DoctorView {
	v := clinic.DoctorView{Demographics: e.c.Patient.Demographics, OpeningComplaint: e.c.Patient.OpeningComplaint,
		Cards: cards, Rules: rules, Turn: e.Len(), MaxTurns: e.cfg.MaxTurns, FinalFields: []string{"diagnosis"}}
	for _, a := range e.actions() {
		v.Actions = append(v.Actions, string(a))
	}
	ext := View{Mode: e.mode, Options: e.dict.Pathologies(), Findings: e.known()}
	if e.mode == ModeStream {
		v.OpeningComplaint = Profile(v.Demographics, ext.Findings)
	}
	for _, ev := range e.Seen() {
		if ev.Action == clinic.Ask && ev.Status == clinic.StatusReturned {
			v.Exchanges = append(v.Exchanges, clinic.Exchange{Question: ev.Question, Topic: ev.Topic, Answer: ev.Reply,
				Answered: len(ev.RevealedFacts) > 0})
		}
	}
	v.Ext = ext
	return v
}

// known are the findings the doctor knows: all of them in stream mode; the
// initial evidence and those the patient confirmed, in order, otherwise.
func (e *Env) known() []Finding {
	if e.mode == ModeStream {
		return e.rec.Findings
	}
	told := map[string]bool{e.rec.Initial: true}
	for _, ev := range e.Seen() {
		for _, id := range ev.RevealedFacts {
			told[id] = true
		}
	}
	var out []Finding
	for _, f := range e.rec.Findings {
		if told[f.Code] {
			out = append(out, f)
		}
	}
	return out
}

// Revealed is everything the doctor has been told.
func (e *Env) Revealed() string {
	v := e.View(nil, nil)
	parts := []string{v.Demographics.Text, v.OpeningComplaint}
	for _, x := range v.Exchanges {
		parts = append(parts, x.Answer)
	}
	return strings.Join(parts, "\n")
}

// Step applies one doctor turn; an action the mode does not offer is a
// recorded invalid turn.
func (e *Env) Step(_ context.Context, in episode.StepInput) (clinic.Event, error) {
	if e.Done() {
		return clinic.Event{}, episode.ErrDone
	}
	out := in.Output
	ev := clinic.Event{Turn: e.Len(), Action: out.Action, Question: out.Question, RetrievedCards: in.RetrievedCards,
		PrunedCards: in.PrunedCards, Rationale: out.Rationale, WorkingDiagnoses: out.WorkingDiagnoses, LLMError: in.LLMError}
	switch {
	case in.LLMError:
		ev.Status = clinic.StatusUnparseable
	case out.Action == clinic.Ask && e.mode == ModeInteractive:
		e.ask(&ev)
	case out.Action == clinic.Finalize:
		dx := episode.Named(out.Diagnosis)
		if len(dx) == 0 {
			ev.Status, ev.Reply = clinic.StatusInvalid, "FINALIZE needs a diagnosis: one of the options, most likely first"
			break
		}
		ev.Status, ev.Final = clinic.StatusFinalized, &clinic.FinalOutput{Diagnosis: dx}
	default:
		ev.Status = clinic.StatusInvalid
		ev.Reply = fmt.Sprintf("action %q is not offered in %s mode; use one of %s", out.Action, e.mode, strings.Join(e.View(nil, nil).Actions, ", "))
	}
	e.apply(ev)
	return e.Latest(), nil
}

// ask answers a question about one evidence: the patient's answer when the
// patient has it, no when not, and a request to rephrase when the question
// asks about nothing the release asks.
func (e *Env) ask(ev *clinic.Event) {
	ev.Status = clinic.StatusReturned
	code, ok := e.dict.Match(ev.Question)
	if !ok {
		ev.Reply, ev.Unanswered = "I'm not sure what you are asking me.", episode.UnclearQuestion
		return
	}
	ev.Topic = code
	for _, f := range e.rec.Findings {
		if f.Code == code {
			ev.Reply, ev.RevealedFacts, ev.Unanswered = capitalise(f.Answer)+".", []string{code}, episode.AnsweredNone
			return
		}
	}
	ev.Reply, ev.Unanswered = "No.", episode.NotInPatientView
	if ex, _ := e.dict.Evidence(code); ex.Type != Binary {
		ev.Reply = "No, I don't have that."
	}
}

// apply records an event; at the turn limit the encounter ends with the
// latest working diagnosis, recorded on the event so that Start ends it the
// same way.
func (e *Env) apply(ev clinic.Event) {
	if !e.Record(ev) && e.Len() >= e.cfg.MaxTurns {
		e.ForceEnd(&clinic.FinalOutput{Diagnosis: episode.LatestWorking(e.Seen()), Forced: true})
	}
}
