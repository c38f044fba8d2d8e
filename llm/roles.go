package llm

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/clinevo/clinevo/actor"
	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/catalog"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/evolver"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/settings"
)

// Doctor is a model-backed doctor. It renders only the DoctorView.
type Doctor struct{ C *Client }

var _ actor.Doctor = Doctor{}

// DoctorPrompt renders the doctor's messages for a view.
func DoctorPrompt(v clinic.DoctorView) ([]Message, error) { return Render("doctor", v, v) }

// Decide asks the model for the next action. A reply still malformed after the
// repair request is an llm_error turn, not an error.
func (d Doctor) Decide(ctx context.Context, v clinic.DoctorView) (actor.Decision, error) {
	msgs, err := DoctorPrompt(v)
	if err != nil {
		return actor.Decision{}, err
	}
	var out clinic.DoctorOutput
	err = d.C.JSON(ctx, msgs, &out, func() error {
		action, ok := Enum(string(out.Action), v.Actions...)
		if !ok {
			return fmt.Errorf("action %q is not one of %s", out.Action, strings.Join(v.Actions, ", "))
		}
		out.Action = clinic.ActionKind(action)
		switch {
		case out.Action == clinic.Ask && strings.TrimSpace(out.Question) == "":
			return errors.New("ASK needs a question")
		case out.Action == clinic.RequestTest && strings.TrimSpace(out.TestName) == "":
			return errors.New("REQUEST_TEST needs a test_name")
		case out.Action == clinic.Finalize && missingFinal(out, v.FinalFields) != "":
			return fmt.Errorf("FINALIZE needs %s; missing %s", strings.Join(v.FinalFields, ", "), missingFinal(out, v.FinalFields))
		}
		return nil
	})
	return Decided(out, err)
}

// Decided is the doctor's decision from a checked reply, whatever its
// format: a reply still malformed after the repair request is an llm_error
// turn, not an error, and the harness's own fields are cleared, since the
// model may not set them.
func Decided(out clinic.DoctorOutput, err error) (actor.Decision, error) {
	if IsMalformed(err) {
		return actor.Decision{LLMError: true}, nil
	}
	if err != nil {
		return actor.Decision{}, err
	}
	out.Topic, out.CardIDs = "", nil
	return actor.Decision{Output: out}, nil
}

// missingFinal lists the required closing fields a FINALIZE left empty.
func missingFinal(o clinic.DoctorOutput, fields []string) string {
	var missing []string
	for _, f := range fields {
		v := map[string][]string{"diagnosis": o.Diagnosis, "evidence": o.Evidence, "plan": o.Plan, "followup": o.Followup}[f]
		if len(v) == 0 {
			missing = append(missing, f)
		}
	}
	return strings.Join(missing, ", ")
}

// Patient is a model-backed patient that answers from the patient view only.
type Patient struct{ C *Client }

var _ episode.Patient = Patient{}

type patientReply struct {
	Answer     string   `json:"answer"`
	Revealed   []string `json:"revealed_fact_ids"`
	Unanswered string   `json:"unanswered_reason"`
	Generated  bool     `json:"generated_detail"`
}

// Answer asks the model; a malformed reply is an honest "I don't know" marked as an llm error.
func (p Patient) Answer(ctx context.Context, q episode.PatientQuery) (episode.PatientReply, error) {
	msgs, err := Render("patient", q, q)
	if err != nil {
		return episode.PatientReply{}, err
	}
	ids := map[string]bool{}
	for _, f := range q.View.Facts {
		ids[f.ID] = true
	}
	var r patientReply
	err = p.C.JSON(ctx, msgs, &r, func() error {
		for _, id := range r.Revealed {
			if !ids[id] {
				return fmt.Errorf("revealed_fact_ids holds %q, which is not one of your facts", id)
			}
		}
		reason, ok := Enum(r.Unanswered, episode.AnsweredNone, episode.NotInPatientView, episode.UnclearQuestion)
		if !ok {
			return fmt.Errorf("unanswered_reason %q is not none, not_in_patient_view or unclear_question", r.Unanswered)
		}
		r.Unanswered = reason
		if strings.TrimSpace(r.Answer) == "" {
			return errors.New("answer is empty")
		}
		if r.Generated && (!q.Invent || len(r.Revealed) > 0) {
			return errors.New("generated_detail is only for answers beyond your facts, with no fact IDs")
		}
		return nil
	})
	if IsMalformed(err) {
		return episode.PatientReply{Text: "(no usable answer)", Unanswered: episode.UnclearQuestion, LLMError: true}, nil
	}
	if err != nil {
		return episode.PatientReply{}, err
	}
	return episode.PatientReply{Text: r.Answer, FactIDs: r.Revealed, Unanswered: r.Unanswered, Generated: r.Generated}, nil
}

// Exam is a model-backed test matcher. The result text always comes from the exam view.
type Exam struct{ C *Client }

var _ episode.ExamService = Exam{}

type examReply struct {
	Match string `json:"match"`
	Item  string `json:"item"`
}

// Resolve tries the catalog first and asks the model only when no name or alias matches.
func (e Exam) Resolve(ctx context.Context, request string, cat *catalog.Catalog) (catalog.Item, catalog.Match, error) {
	if it, m := cat.Lookup(request); m != catalog.MatchNone {
		return it, m, nil
	}
	names := cat.Names()
	msgs, err := Render("exam", names, request)
	if err != nil {
		return catalog.Item{}, catalog.MatchNone, err
	}
	var r examReply
	err = e.C.JSON(ctx, msgs, &r, func() error {
		r.Match, _ = Enum(r.Match, "exact", "alias", "none") // an unknown value falls through to the error below
		switch r.Match {
		case "none":
			return nil
		case "exact", "alias":
			if _, m := cat.Lookup(r.Item); m == catalog.MatchNone {
				return fmt.Errorf("item %q is not in the catalog", r.Item)
			}
			return nil
		}
		return fmt.Errorf("match %q is not exact, alias or none", r.Match)
	})
	if IsMalformed(err) || (err == nil && r.Match == "none") {
		return catalog.Item{}, catalog.MatchNone, nil
	}
	if err != nil {
		return catalog.Item{}, catalog.MatchNone, err
	}
	it, _ := cat.Lookup(r.Item)
	return it, catalog.MatchAlias, nil
}

// Consultant is a model-backed consultant reading the revealed context only.
type Consultant struct{ C *Client }

var _ episode.Consultant = Consultant{}

type consultReply struct {
	Advice   string `json:"advice"`
	Next     string `json:"next_action"`
	Question string `json:"question"`
}

// Advise returns the consultant's note.
func (c Consultant) Advise(ctx context.Context, v clinic.DoctorView, question string) (string, error) {
	msgs, err := Render("consultant", nil, struct {
		View     clinic.DoctorView
		Question string
	}{v, question})
	if err != nil {
		return "", err
	}
	var r consultReply
	err = c.C.JSON(ctx, msgs, &r, func() error {
		next, ok := Enum(r.Next, "ASK", "FINALIZE")
		if !ok {
			return fmt.Errorf("next_action %q is not ASK or FINALIZE", r.Next)
		}
		r.Next = next
		return nil
	})
	if IsMalformed(err) {
		return "Consultant: no usable advice this time.", nil
	}
	if err != nil {
		return "", err
	}
	note := "Consultant: " + r.Advice
	if r.Next == "ASK" && r.Question != "" {
		note += " Suggested question: " + r.Question
	} else if r.Next == "FINALIZE" {
		note += " Suggested next step: FINALIZE."
	}
	return note, nil
}

// Judge is a model-backed judge (run it at temperature 0). A reply still
// malformed after repair falls back to the rubric judge, and the fallback is
// counted as an llm error of the judge.
type Judge struct {
	C        *Client
	Fallback grader.Judge
}

var (
	_ grader.Judge          = Judge{}
	_ grader.DiagnosisJudge = Judge{}
)

type gradeJudgeReply struct {
	Grade         *int   `json:"grade"`
	Justification string `json:"justification"`
}

// JudgeDiagnosis grades a submitted diagnosis 0–100 (EvoClinician §3: the
// Judge's single graded mode). Run the judge at temperature 0 with the cache
// on, so a grade is asked once and read back after; a reply malformed after
// repair falls back to the rubric.
func (j Judge) JudgeDiagnosis(ctx context.Context, c *clinic.Case, diagnosis []string) (grader.DiagnosisGrade, error) {
	msgs, err := Render("judge_grade", nil, struct {
		Case      *clinic.Case
		Diagnosis []string
	}{c, diagnosis})
	if err != nil {
		return grader.DiagnosisGrade{}, err
	}
	var r gradeJudgeReply
	err = j.C.JSON(ctx, msgs, &r, func() error {
		if r.Grade == nil || *r.Grade < 0 || *r.Grade > 100 {
			return errors.New("grade must be an integer from 0 to 100")
		}
		return nil
	})
	if dj, ok := j.Fallback.(grader.DiagnosisJudge); ok && IsMalformed(err) {
		j.C.CountFallback(ctx)
		return dj.JudgeDiagnosis(ctx, c, diagnosis)
	}
	if err != nil {
		return grader.DiagnosisGrade{}, err
	}
	return grader.DiagnosisGrade{Grade: *r.Grade, Rationale: r.Justification}, nil
}

type judgeReply struct {
	Grade        float64  `json:"diagnosis_grade"`
	Matched      []string `json:"matched_evidence"`
	Hallucinated []string `json:"hallucinated_evidence"`
	PlanMatched  []string `json:"matched_plan"`
	Unsafe       []string `json:"unsafe_plan"`
}

// Judge grades a final output.
func (j Judge) Judge(ctx context.Context, c *clinic.Case, revealed string, final clinic.FinalOutput) (grader.Judgement, error) {
	msgs, err := Render("judge", nil, struct {
		Case     *clinic.Case
		Revealed string
		Final    clinic.FinalOutput
	}{c, revealed, final})
	if err != nil {
		return grader.Judgement{}, err
	}
	plan := append(append([]string(nil), final.Plan...), final.Followup...)
	var r judgeReply
	err = j.C.JSON(ctx, msgs, &r, func() error {
		if !slices.Contains([]float64{1, 0.75, 0.5, 0.25, 0}, r.Grade) {
			return fmt.Errorf("diagnosis_grade %v is not one of 1, 0.75, 0.5, 0.25, 0", r.Grade)
		}
		for _, chk := range []struct {
			field string
			got   []string
			from  []string
		}{{"matched_evidence", r.Matched, c.Manager.Evidence}, {"hallucinated_evidence", r.Hallucinated, final.Evidence},
			{"matched_plan", r.PlanMatched, c.Manager.Management}, {"unsafe_plan", r.Unsafe, plan}} {
			for _, x := range chk.got {
				if !slices.Contains(chk.from, x) {
					return fmt.Errorf("%s holds %q, which is not copied exactly from the list it must come from", chk.field, x)
				}
			}
		}
		return nil
	})
	if IsMalformed(err) && j.Fallback != nil {
		j.C.CountFallback(ctx)
		return j.Fallback.Judge(ctx, c, revealed, final)
	}
	if err != nil {
		return grader.Judgement{}, err
	}
	return grader.Judgement{Diagnosis: r.Grade, Matched: r.Matched, Hallucinated: r.Hallucinated, PlanMatched: r.PlanMatched, Unsafe: r.Unsafe}, nil
}

// ProcessGrader is a model-backed process grader. A malformed reply falls back
// to the built-in grader with the benchmark's labels; Bench (the run's
// benchmark) names what each of its own actions was about (bench.Describe).
type ProcessGrader struct {
	C      *Client
	Labels grader.Labeler
	Bench  bench.Benchmark
}

var _ grader.ProcessGrader = ProcessGrader{}

type gradeReply struct {
	Labels []struct {
		Turn      int    `json:"turn"`
		Label     string `json:"label"`
		Rationale string `json:"rationale"`
	} `json:"labels"`
	Summary string `json:"summary"`
}

// gradedEvent is an action as the grader's prompt lists it: the event, and
// what the benchmark's own action was about.
type gradedEvent struct {
	clinic.Event
	Target string
}

// GradeProcess labels every action.
func (g ProcessGrader) GradeProcess(ctx context.Context, in grader.ProcessInput, key *grader.Key) (grader.ProcessGrade, error) {
	events := in.Events
	lines := make([]gradedEvent, len(events))
	for i, ev := range events {
		lines[i].Event = ev
		if d := bench.Describe(g.Bench, ev); d.Own {
			lines[i].Target = d.Target
		} // "" for the shared actions: their question or test is the line's
	}
	msgs, err := Render("grader", nil, struct {
		grader.ProcessInput
		Key    *grader.Key
		Events []gradedEvent
	}{in, key, lines})
	if err != nil {
		return grader.ProcessGrade{}, err
	}
	var r gradeReply
	valid := []string{string(grader.HighYield), string(grader.LowYield), string(grader.Inefficient), string(grader.CriticalError)}
	err = g.C.JSON(ctx, msgs, &r, func() error {
		if len(r.Labels) != len(events) {
			return fmt.Errorf("%d labels for %d actions; label every action once", len(r.Labels), len(events))
		}
		for i, l := range r.Labels {
			if l.Turn != i {
				return fmt.Errorf("label %d is for turn %d; give them in turn order from 0", i, l.Turn)
			}
			label, ok := Enum(l.Label, valid...)
			if !ok {
				return fmt.Errorf("label %q is not one of %s", l.Label, strings.Join(valid, ", "))
			}
			r.Labels[i].Label = label
		}
		return nil
	})
	if IsMalformed(err) {
		g.C.CountFallback(ctx)
		return grader.GradeProcess(in, key, g.Labels), nil
	}
	if err != nil {
		return grader.ProcessGrade{}, err
	}
	pg := grader.ProcessGrade{Summary: r.Summary, Counts: map[grader.Label]int{}}
	for i, l := range r.Labels {
		ev := events[i]
		target := ev.Topic
		if target == "" {
			target = ev.Question
		}
		switch ev.Action {
		case clinic.RequestTest:
			target = ev.Test
		}
		if lines[i].Target != "" {
			target = lines[i].Target // what the benchmark's own action was about
		}
		pg.Actions = append(pg.Actions, grader.ActionGrade{Turn: i, Action: ev.Action, Target: target, Label: grader.Label(l.Label), Rationale: l.Rationale})
		pg.Counts[grader.Label(l.Label)]++
	}
	return pg, nil
}

// Evolver is a model-backed evolver: the model proposes rule edits and cards;
// the memory entries and transcript summaries a run keeps (evolver.Records)
// are written beside them, and the cards are completed from the trace and
// the key (evolver.FinishCards: the benchmark's lessons) and the rule
// edits joined by the trace's own (evolver.TraceEdits), as the built-in
// evolver does. Everything
// passes the same leak screen as the built-in evolver's; a malformed reply
// changes the rule book and the model's cards in nothing.
type Evolver struct {
	C       *Client
	Lessons evolver.Lessons // the run's benchmark's, nil for none
}

var _ evolver.Evolver = Evolver{}

type evolveReply struct {
	Edits []evolver.Edit `json:"edits"`
	Cards []struct {
		Kind      string   `json:"kind"`
		Text      string   `json:"text"`
		Diagnosis string   `json:"diagnosis"`
		Avoid     string   `json:"avoid"`
		Ask       []string `json:"ask"`
		Tests     []string `json:"tests"`
		Evidence  []string `json:"evidence"`
		Plan      []string `json:"plan"`
	} `json:"cards"`
}

// Evolve asks the model for rule edits and cards.
func (e Evolver) Evolve(ctx context.Context, cfg settings.Evolver, in evolver.Input, truth *grader.Key, rules []clinic.Rule) (evolver.Output, error) {
	msgs, err := Render("evolver", struct{ Budget int }{cfg.RuleBudget}, struct {
		evolver.Input
		Truth *grader.Key
		Rules []clinic.Rule
	}{in, truth, rules})
	if err != nil {
		return evolver.Output{}, err
	}
	var r evolveReply
	err = e.C.JSON(ctx, msgs, &r, func() error {
		for i, ed := range r.Edits {
			op, ok := Enum(ed.Op, evolver.OpAdd, evolver.OpMerge, evolver.OpRetire)
			if !ok {
				return fmt.Errorf("edits[%d].op %q is not add, merge or retire", i, ed.Op)
			}
			r.Edits[i].Op = op
		}
		for i, c := range r.Cards {
			kind, ok := Enum(c.Kind, string(clinic.CardSuccess), string(clinic.CardCorrection), string(clinic.CardRule))
			if !ok || strings.TrimSpace(c.Text) == "" {
				return fmt.Errorf("cards[%d] needs a kind (success, correction or rule) and a text", i)
			}
			r.Cards[i].Kind = kind
		}
		return nil
	})
	out := evolver.Output{Rules: append([]clinic.Rule(nil), rules...)}
	if IsMalformed(err) {
		out.Skipped = []string{"evolver reply malformed after repair; nothing changed"}
		return out, nil
	}
	if err != nil {
		return evolver.Output{}, err
	}
	screen := evolver.NewScreen(cfg, in.Forbidden, truth)
	if cfg.Rules() {
		out.Rules, out.Edits, out.Skipped = evolver.ApplyEdits(evolver.Cite(rules, in, cfg.CiteWindow), append(r.Edits, evolver.TraceEdits(cfg, in, truth, e.Lessons)...), in.Episode, cfg, screen)
	}
	if in.WriteCards {
		var cards []clinic.Card
		for i, rc := range r.Cards {
			kind := clinic.CardKind(rc.Kind)
			c := clinic.Card{CardHint: clinic.CardHint{ID: evolver.CardID(in.Run, in.CaseID, in.Pass, 1000+i, rc.Kind), Kind: kind, Text: rc.Text,
				Diagnosis: rc.Diagnosis, Avoid: rc.Avoid, Ask: rc.Ask, Tests: rc.Tests, Evidence: rc.Evidence, Plan: rc.Plan, Context: in.Opening},
				SearchText: in.Opening + " " + rc.Text, Bank: memory.BankOf(kind), Run: in.Run, Pass: in.Pass, Stage: in.Stage,
				SourceCase: in.CaseID, CreatedEpisode: in.Episode}
			cards = append(cards, c)
		}
		// What needs the trace and the key but not the model (memory entries,
		// summaries, tool calls, referral cards) is added as the built-in
		// evolver adds it.
		cards = append(cards, evolver.Records(cfg, in)...)
		var skipped []string
		out.Cards, skipped = evolver.FinishCards(cfg, in, truth, cards, screen, e.Lessons)
		out.Skipped = append(out.Skipped, skipped...)
	}
	return out, nil
}
