package llm

import (
	"context"

	"github.com/clinevo/clinevo/catalog"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/evolver"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/settings"
)

// The probe case of roles check: a made-up outpatient, small enough that a
// role's reply to it costs a few hundred tokens, holding what each role's
// prompt shows (a fact, a finding, a result, the answer key).
var probeCase = clinic.Case{SchemaVersion: clinic.CaseSchemaVersion, ID: "roles-check",
	Patient: clinic.PatientView{Demographics: clinic.Demographics{Age: 34, Sex: "female"}, OpeningComplaint: "I have had a headache for three days.",
		Facts: []clinic.Fact{{ID: "f1", Text: "It started on Monday morning and has not gone away.", Topics: []string{clinic.TopicOnset}}}},
	Exam: clinic.ExamView{Findings: []clinic.Finding{{System: "neurological", Text: "No focal deficit."}},
		Tests: []clinic.TestValue{{Name: "ecg", Result: "Sinus rhythm."}}, Catalog: []string{"ecg"}},
	Manager: clinic.ManagerView{Diagnosis: clinic.Diagnosis{Name: "Tension-type headache"}, Evidence: []string{"headache for three days"},
		Management: []string{"simple analgesia"}}}

func probeView() clinic.DoctorView {
	return clinic.DoctorView{OpeningComplaint: probeCase.Patient.OpeningComplaint, Demographics: probeCase.Patient.Demographics,
		MaxTurns: 10, MaxTests: 3, Catalog: probeCase.Exam.Catalog, Actions: []string{"ASK", "REQUEST_TEST", "CALL_MDT", "FINALIZE"},
		FinalFields: []string{"diagnosis", "evidence", "plan", "followup"}}
}

// probeShared makes one call of a shared role exactly as a run makes it (the
// role's prompt template and its parser, with the checks a run applies to the
// reply) on the probe case. ok is false for a role without such a call (the
// embeddings, an unknown name). The error is the role's reply still
// malformed after the repair request, which in a run would be an llm_error
// turn or the built-in fallback, or the call's own failure.
func (c *Client) probeShared(ctx context.Context) (ok bool, err error) {
	var seen error
	c.malformedSeen = func(err error) { seen = err }
	defer func() { c.malformedSeen = nil }()
	call, ok := roleCalls[c.Role]
	if !ok {
		return false, nil
	}
	if err := call(ctx, c); err != nil {
		return true, err
	}
	return true, seen
}

// roleCalls are the probe calls of the shared roles (settings.RoleNames but
// the embeddings, which CheckEmbeddings probes).
var roleCalls = map[string]func(context.Context, *Client) error{
	"doctor": func(ctx context.Context, c *Client) error {
		_, err := Doctor{C: c}.Decide(ctx, probeView())
		return err
	},
	"patient": func(ctx context.Context, c *Client) error {
		_, err := Patient{C: c}.Answer(ctx, episode.PatientQuery{View: probeCase.Patient, Question: "When did it start?"})
		return err
	},
	"exam": func(ctx context.Context, c *Client) error {
		// A request no name or alias of the catalog matches, so the model is asked.
		_, _, err := Exam{C: c}.Resolve(ctx, "a tracing of the heart's electrical activity", catalog.Default())
		return err
	},
	"consultant": func(ctx context.Context, c *Client) error {
		_, err := Consultant{C: c}.Advise(ctx, probeView(), "What should I ask next?")
		return err
	},
	"judge": func(ctx context.Context, c *Client) error {
		// Both of the judge's modes: the rubric (MedEvoEval) and the graded
		// diagnosis (EvoClinician §3).
		final := clinic.FinalOutput{Diagnosis: []string{"Tension-type headache"}, Evidence: []string{"headache for three days"},
			Plan: []string{"simple analgesia"}, Followup: []string{"review in two weeks"}}
		if _, err := (Judge{C: c}).Judge(ctx, &probeCase, "It started on Monday morning.", final); err != nil {
			return err
		}
		_, err := Judge{C: c}.JudgeDiagnosis(ctx, &probeCase, final.Diagnosis)
		return err
	},
	"grader": func(ctx context.Context, c *Client) error {
		events := []clinic.Event{{Turn: 0, Action: clinic.Ask, Question: "When did it start?", Status: clinic.StatusReturned, Reply: "On Monday."},
			{Turn: 1, Action: clinic.Finalize, Status: clinic.StatusFinalized}}
		_, err := ProcessGrader{C: c}.GradeProcess(ctx, grader.ProcessInput{Events: events}, nil)
		return err
	},
	"evolver": func(ctx context.Context, c *Client) error {
		// Every field of the evolver's reply is optional (no edit is a
		// reply), so a reply of other fields only, such as {"ok": true}, is
		// one the evolver reads as "change nothing", episode after episode:
		// the probe refuses it.
		var tally Tally
		out, err := Evolver{C: c}.Evolve(WithMeter(ctx, &tally), settings.Default().Evolver, evolver.Input{Run: "roles-check", CaseID: probeCase.ID,
			Episode: 1, Pass: 1, Stage: 1, WriteCards: true}, nil, nil)
		if err == nil && len(out.Edits) == 0 && len(out.Cards) == 0 && tally.ByRole()[c.Role].ExtraFields > 0 {
			return &malformed{role: c.Role, msg: "the reply holds none of the evolver's fields (edits, cards), only others"}
		}
		return err
	},
}
