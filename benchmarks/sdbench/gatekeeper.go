package sdbench

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/clinevo/clinevo/catalog"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/llm"
)

// Role is the name of the gatekeeper role: roles.gatekeeper.
const Role = "gatekeeper"

// Gatekeeper holds the whole case and answers the doctor (Nori et al. 2025,
// SDBench): it reveals a finding only when it is asked for explicitly, and
// answers a test the record does not hold with a plausible result consistent
// with the case, so that "not recorded" never tells the doctor a test was
// irrelevant. The environment, not the gatekeeper, returns recorded results
// verbatim, refuses requests for the diagnosis, and keeps every answer and
// synthetic result for the rest of the episode (in its events).
type Gatekeeper interface {
	// Answer answers one question from the record (q.View is the case's
	// history; the question's own facts only). Errors are transient faults
	// of a model-backed gatekeeper.
	Answer(ctx context.Context, c *clinic.Case, q episode.PatientQuery) (episode.PatientReply, error)
	// Synthesize is the result of a test the record does not hold,
	// consistent with the case; revealed is what the doctor has been told.
	Synthesize(ctx context.Context, c *clinic.Case, test, revealed string) (string, error)
}

// Builtin is the deterministic gatekeeper: the fact-retrieval reading of a
// question (the built-in patient's, without a persona: the gatekeeper
// speaks for the record), and for a test the record does not hold a result
// that never contradicts the record.
type Builtin struct{}

var _ Gatekeeper = Builtin{}

// Answer tells the facts the question matches, nothing else.
func (Builtin) Answer(ctx context.Context, _ *clinic.Case, q episode.PatientQuery) (episode.PatientReply, error) {
	q.View.Persona = clinic.Persona{}
	return episode.BuiltinPatient{}.Answer(ctx, q)
}

// normalWordings are how the built-in gatekeeper words a normal result
// (clinevo's own text); which one a test gets is fixed by case and test.
var normalWordings = []string{
	"%s: within normal limits.",
	"%s: no abnormality detected.",
	"%s: unremarkable; all values in the reference range.",
}

// Synthesize is the result of a test the record does not hold. The paper's
// gatekeeper, a language model, makes up a result consistent with the case
// (§2); the built-in one cannot, so it never says more than the record
// does: a test of a region or organ the examination describes is answered
// with that description; one of a region another recorded test covers is
// not recorded; otherwise, where the record holds every abnormal finding of
// the case (Record.Complete: the synthetic corpus), a normal result is
// consistent with it, and elsewhere the finding is not recorded.
func (Builtin) Synthesize(_ context.Context, c *clinic.Case, test, _ string) (string, error) {
	name := strings.ToUpper(test[:1]) + test[1:]
	notRecorded := name + ": no result is recorded for this patient."
	if regions := regionsOf(test); len(regions) > 0 {
		if found := describedBy(c, regions); len(found) > 0 {
			return name + ": no separate result is recorded; the examination found " + strings.Join(found, "; "), nil
		}
		if regionTested(c, regions, test) {
			return notRecorded, nil
		}
	}
	if !RecordOf(c).Complete {
		return notRecorded, nil
	}
	if it, m := catalog.Default().Lookup(test); m != catalog.MatchNone && it.Free() {
		return name + ": no abnormality found.", nil // an examination has no reference range
	}
	h := fnv.New32a()
	h.Write([]byte(c.ID + "\x00" + test))
	return fmt.Sprintf(normalWordings[h.Sum32()%uint32(len(normalWordings))], name), nil
}

// gatekeeperOf is the run's gatekeeper: the model one where roles.gatekeeper
// is a model, else the built-in one.
func gatekeeperOf(roles episode.Roles) Gatekeeper {
	if g, ok := roles.Extra[Role].(Gatekeeper); ok {
		return g
	}
	return Builtin{}
}

// asPatient lets the shared question machinery (episode.AskPatient: the
// answer cache per episode, facts held back, details beyond the record
// cached by topic, as Med-Inquire's patient) ask the gatekeeper.
type asPatient struct {
	g Gatekeeper
	c *clinic.Case
}

func (p asPatient) Answer(ctx context.Context, q episode.PatientQuery) (episode.PatientReply, error) {
	return p.g.Answer(ctx, p.c, q)
}

// ModelGatekeeper is the gatekeeper on a model (roles.gatekeeper): it reads
// the whole case, the full record included.
type ModelGatekeeper struct{ C *llm.Client }

var _ Gatekeeper = ModelGatekeeper{}

type answerReply struct {
	Answer   string   `json:"answer"`
	Revealed []string `json:"revealed_fact_ids"`
	Beyond   bool     `json:"beyond_record"`
}

// Answer asks the model; its fact IDs must be the case's. A reply still
// malformed after repair is an honest "not in the record", marked as an llm
// error.
func (g ModelGatekeeper) Answer(ctx context.Context, c *clinic.Case, q episode.PatientQuery) (episode.PatientReply, error) {
	msgs, err := templates.Render("gatekeeper_answer", caseData(c), struct {
		Question string
		Revealed map[string]bool
	}{q.Question, q.Revealed})
	if err != nil {
		return episode.PatientReply{}, err
	}
	ids := map[string]bool{}
	for _, f := range c.Patient.Facts {
		ids[f.ID] = true
	}
	var r answerReply
	err = g.C.JSON(ctx, msgs, &r, func() error {
		for _, id := range r.Revealed {
			if !ids[id] {
				return fmt.Errorf("revealed_fact_ids holds %q, which is not a fact ID of the case", id)
			}
		}
		if strings.TrimSpace(r.Answer) == "" {
			return errors.New("answer is empty")
		}
		return nil
	})
	if llm.IsMalformed(err) {
		return episode.PatientReply{Text: "That is not recorded.", Unanswered: episode.NotInPatientView, LLMError: true}, nil
	}
	if err != nil {
		return episode.PatientReply{}, err
	}
	rep := episode.PatientReply{Text: r.Answer, FactIDs: r.Revealed, Unanswered: episode.AnsweredNone}
	switch {
	case len(r.Revealed) == 0 && r.Beyond && q.Invent:
		rep.Generated = true
	case len(r.Revealed) == 0:
		rep.Unanswered = episode.NotInPatientView
	}
	return rep, nil
}

type resultReply struct {
	Result string `json:"result"`
}

// Synthesize asks the model for a result consistent with the case.
func (g ModelGatekeeper) Synthesize(ctx context.Context, c *clinic.Case, test, revealed string) (string, error) {
	msgs, err := templates.Render("gatekeeper_result", caseData(c), struct{ Test, Revealed string }{test, revealed})
	if err != nil {
		return "", err
	}
	var r resultReply
	err = g.C.JSON(ctx, msgs, &r, func() error {
		if strings.TrimSpace(r.Result) == "" {
			return errors.New("result is empty")
		}
		return nil
	})
	if llm.IsMalformed(err) {
		return Builtin{}.Synthesize(ctx, c, test, revealed) // counted as an llm error by the client's repair accounting
	}
	return r.Result, err
}

// caseData is what the gatekeeper's prompts read: the case with its full
// record.
func caseData(c *clinic.Case) any {
	return struct {
		Case     *clinic.Case
		FullCase string
	}{c, RecordOf(c).FullCase}
}
