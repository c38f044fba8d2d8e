package view

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"math"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/runner"
	"github.com/clinevo/clinevo/settings"
)

type episodePage struct {
	Title    string
	Record   results.Record
	Trace    clinic.Trace
	Turns    []turnView
	Scores   ScoreView
	Grade    *grader.ProcessGrade
	Written  []cardRef
	Evicted  []cardRef
	Usage    []roleUsage
	History  historyLinks
	Source   string // what the explanations and the replay read, or why they are missing
	Replayed bool   // the similarities are a replay of the episode's retrieval
	Differs  []int  // turns whose replayed cards differ from the recorded ones
	// Prev and Next are the run's episodes before and after this one, in
	// its case order; nil at either end.
	Prev, Next *results.Record
	Glossary   template.HTML
}

// turnView is one turn as the page shows it.
type turnView struct {
	clinic.Event
	Said   string // who or what answered: patient, result, consultant, ...
	Target string // the question, test, or what the benchmark's own action was about
	// Disposition is how a closing action ended the episode, in the
	// benchmark's words (episode.Disposition), "" where it has none.
	Disposition string
	Detail      string // the structured detail of a benchmark's own action (ShowAction), as it is shown
	Label       *grader.ActionGrade
	Cards       []shownCard
	NewCards    bool   // the cards differ from the turn before's (the page opens them)
	Query       string // the memory query of the conversation so far, as the doctor made it
	QueryHref   string // that query on the memory page, as of the memory the doctor read
}

// shownCard is a card shown to the doctor at a turn.
type shownCard struct {
	ID, Kind, Text string
	Similarity     *float64 // nil: not replayed
	Missing        bool     // not in the bank any more
}

// cardRef is a card written or evicted by an episode.
type cardRef struct {
	ID, Kind, Text string
	Missing        bool
}

type historyLinks struct {
	WorkflowID string
	Command    string // temporal workflow show ...
	UI         string // the Temporal Web UI's page, when one is configured
}

// caseOf loads a case from its corpus (each corpus once).
func (s *Server) caseOf(ref, id string) (clinic.Case, error) {
	cp, err := s.corpora.Load(ref)
	if err != nil {
		return clinic.Case{}, err
	}
	c, ok := cp.Case(id)
	if !ok {
		return clinic.Case{}, fmt.Errorf("case %q is not in corpus %s", id, ref)
	}
	return c, nil
}

func (s *Server) episode(ctx context.Context, r *http.Request) (any, error) {
	id := r.URL.Query().Get("id")
	if id == "" {
		return nil, badRequest("episode: the address needs ?id=EPISODE_ID")
	}
	rec, t, err := s.o.Results.RecordTrace(ctx, id)
	if err != nil {
		return nil, err
	}
	p := episodePage{Title: "episode " + rec.WorkflowID, Record: rec, Trace: t, History: s.history(rec.WorkflowID), Usage: roleUsages(rec.Usage)}
	if err := s.neighbours(ctx, &p); err != nil {
		return nil, err
	}
	if p.Grade, err = s.gradeOf(ctx, id); err != nil {
		return nil, err
	}
	// The run's benchmark reads and shows its own actions; a run whose source
	// is not found (or a build without the benchmark) is read the shared way.
	src, srcErr := results.SourceOfRun(ctx, s.o.Results, rec.Run)
	var b bench.Benchmark
	if srcErr == nil {
		b, _ = s.o.Benchmarks.Of(src.Settings) // nil for a benchmark this build does not have
		p.Glossary = analysis.GlossaryHTML(analysis.Glossaries(b))
	}
	cards := &cardCache{s: s, ctx: ctx, read: map[string]cardRef{}}
	if err := p.addTurns(b, cards); err != nil {
		return nil, err
	}
	if p.Written, err = cards.all(rec.Written); err != nil {
		return nil, err
	}
	if p.Evicted, err = cards.all(rec.Evicted); err != nil {
		return nil, err
	}
	if err := s.explainScores(ctx, &p, b, src, srcErr); err != nil {
		return nil, err
	}
	return p, nil
}

// neighbours sets the run's episodes before and after p's, in case order.
func (s *Server) neighbours(ctx context.Context, p *episodePage) error {
	run, err := s.o.Results.Records(ctx, p.Record.Run)
	if err != nil {
		return err
	}
	if i := slices.IndexFunc(run, func(r results.Record) bool { return r.EpisodeID == p.Record.EpisodeID }); i >= 0 {
		if i > 0 {
			p.Prev = &run[i-1]
		}
		if i+1 < len(run) {
			p.Next = &run[i+1]
		}
	}
	return nil
}

// gradeOf is the episode's process grade, nil when none is stored.
func (s *Server) gradeOf(ctx context.Context, id string) (*grader.ProcessGrade, error) {
	var pg grader.ProcessGrade
	switch err := s.o.Results.Grade(ctx, id, &pg); {
	case err == nil:
		return &pg, nil
	case !errors.Is(err, results.ErrNotFound):
		return nil, err
	}
	return nil, nil
}

// cardCache reads each card once: consecutive turns mostly show the same.
type cardCache struct {
	s    *Server
	ctx  context.Context
	read map[string]cardRef
}

func (c *cardCache) get(id string) (cardRef, error) {
	if r, ok := c.read[id]; ok {
		return r, nil
	}
	r, err := c.s.cardOrMissing(c.ctx, id)
	if err == nil {
		c.read[id] = r
	}
	return r, err
}

// all reads the cards ids, in order.
func (c *cardCache) all(ids []string) ([]cardRef, error) {
	var out []cardRef
	for _, id := range ids {
		r, err := c.get(id)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// addTurns adds a view of each turn of the trace: what was said and about
// what as benchmark b reads it (nil: the shared reading), its label, the
// cards the doctor was shown.
func (p *episodePage) addTurns(b bench.Benchmark, cards *cardCache) error {
	for _, ev := range p.Trace.Events {
		d := bench.Describe(b, ev)
		tv := turnView{Event: ev, Said: or(d.Said, said(ev)), Target: d.Name, Detail: d.Detail, Disposition: d.Disposition}
		if p.Grade != nil {
			for i := range p.Grade.Actions {
				if p.Grade.Actions[i].Turn == ev.Turn {
					tv.Label = &p.Grade.Actions[i]
				}
			}
		}
		shown, err := cards.all(ev.RetrievedCards)
		if err != nil {
			return err
		}
		for _, c := range shown {
			tv.Cards = append(tv.Cards, shownCard{ID: c.ID, Kind: c.Kind, Text: c.Text, Missing: c.Missing})
		}
		tv.NewCards = len(p.Turns) == 0 || !slices.Equal(ev.RetrievedCards, p.Turns[len(p.Turns)-1].RetrievedCards)
		p.Turns = append(p.Turns, tv)
	}
	return nil
}

// roleUsages are an episode's model use by role, in role order.
func roleUsages(byRole map[string]results.Usage) []roleUsage {
	var out []roleUsage
	for role, u := range byRole {
		out = append(out, roleUsage{role, u})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Role < out[j].Role })
	return out
}

// explainScores explains the episode's scores against its case and
// settings, and replays its retrieval, when the run's source (src, or why
// there is none: srcErr) and case can be read; else the scores are shown
// as stored, and Source says why.
func (s *Server) explainScores(ctx context.Context, p *episodePage, b bench.Benchmark, src results.RunSource, srcErr error) error {
	rec := p.Record
	if errors.Is(srcErr, results.ErrNotFound) {
		p.Source = srcErr.Error() + "; the scores are shown as stored, without the similarity of the cards shown"
		p.Scores = Explain(rec.Scores, nil, nil, nil)
		return nil
	}
	if srcErr != nil {
		return srcErr
	}
	c, err := s.caseOf(src.Corpus, rec.CaseID)
	if err != nil {
		p.Source = fmt.Sprintf("run %s: %v; the scores are shown as stored, without the similarity of the cards shown", rec.Run, err)
		p.Scores = Explain(rec.Scores, nil, nil, nil)
		return nil
	}
	p.Source = fmt.Sprintf("case %s of %s, profile %s", c.ID, src.Corpus, src.Settings.Benchmark)
	p.Scores = Explain(rec.Scores, &c, &src.Settings, b)
	return s.replay(ctx, p, c, src)
}

// cardOrMissing reads a card for display; a card the bank no longer holds
// (another backend, an import elsewhere) is shown by its ID.
func (s *Server) cardOrMissing(ctx context.Context, id string) (cardRef, error) {
	c, err := s.o.Memory.Get(ctx, id)
	if errors.Is(err, memory.ErrNotFound) {
		return cardRef{ID: id, Missing: true}, nil
	}
	if err != nil {
		return cardRef{}, err
	}
	return cardRef{ID: c.ID, Kind: string(c.Kind), Text: c.Text}, nil
}

// replay rebuilds the doctor's view before each turn from the stored events,
// as the Decide activity does, and runs the doctor's retrieval again on the
// memory as of the episode (frozen: nothing is counted), which gives the
// similarity of each card shown and the query the doctor made.
func (s *Server) replay(ctx context.Context, p *episodePage, c clinic.Case, src results.RunSource) error {
	if len(src.MemoryRuns) == 0 {
		return nil // no memory in this run: no card was shown
	}
	b, err := s.o.Benchmarks.Of(src.Settings)
	if err != nil {
		return nil // a benchmark this build does not have: its views cannot be rebuilt, the page shows what was stored
	}
	d := runner.Deps{Bench: b, Roles: runner.BuiltinRoles(), Settings: src.Settings}
	m := runner.Meta{RunID: p.Record.Run, EpisodeID: p.Record.EpisodeID, Number: p.Record.Number, Pass: p.Record.Pass, Stage: p.Record.Stage,
		MemoryRuns: src.MemoryRuns, Frozen: true}
	asOf := p.Record.Number - 1 // Retrieve reads the memory after the previous episode (evaluations: Number = as_of + 1)
	for i := range p.Turns {
		ep, err := d.Start(c, p.Trace.Events[:i])
		if err != nil {
			return fmt.Errorf("episode %s: rebuild turn %d: %w", p.Record.EpisodeID, i, err)
		}
		view := ep.View(nil, nil)
		cards, err := runner.Retrieve(ctx, s.o.Memory, view, src.Settings.Recall(), m)
		if err != nil {
			return fmt.Errorf("episode %s: replay the retrieval of turn %d: %w", p.Record.EpisodeID, i, err)
		}
		tv := &p.Turns[i]
		if asOf > 0 && src.Settings.Memory.Retrieval != "recent" {
			tv.Query = runner.QueryText(view)
			tv.QueryHref = "/memory?" + url.Values{"q": {tv.Query}, "as_of": {fmt.Sprint(asOf)}, "runs": {strings.Join(src.MemoryRuns, ",")},
				"top": {fmt.Sprint(src.Settings.Memory.K)}}.Encode()
		}
		var ids []string
		sim := map[string]float64{}
		for _, h := range cards {
			ids = append(ids, h.ID)
			sim[h.ID] = h.Similarity
		}
		if !slices.Equal(ids, tv.RetrievedCards) {
			p.Differs = append(p.Differs, tv.Turn)
			continue
		}
		for j := range tv.Cards {
			v := sim[tv.Cards[j].ID]
			tv.Cards[j].Similarity = &v
		}
	}
	p.Replayed = true
	return nil
}

func (s *Server) history(workflowID string) historyLinks {
	h := historyLinks{WorkflowID: workflowID}
	cmd := []string{"temporal", "workflow", "show", "--workflow-id", shellQuote(workflowID)}
	if s.o.TemporalAddress != "" {
		cmd = append(cmd, "--address", s.o.TemporalAddress)
	}
	if s.o.Namespace != "" {
		cmd = append(cmd, "--namespace", s.o.Namespace)
	}
	h.Command = strings.Join(cmd, " ")
	if s.o.TemporalUI != "" {
		ns := s.o.Namespace
		if ns == "" {
			ns = "default"
		}
		h.UI = strings.TrimRight(s.o.TemporalUI, "/") + "/namespaces/" + url.PathEscape(ns) + "/workflows/" + url.PathEscape(workflowID)
	}
	return h
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// said names what answered an action: an examination outside the test
// budget (Event.Free) answers with a finding.
func said(ev clinic.Event) string {
	switch ev.Action {
	case clinic.Ask:
		return "patient"
	case clinic.RequestTest:
		return "result"
	case clinic.CallMDT:
		return "consultant"
	}
	if ev.Free {
		return "finding"
	}
	return "reply"
}

// or is s, or else when s is empty.
func or(s, otherwise string) string {
	if s == "" {
		return otherwise
	}
	return s
}

// Explainer is a benchmark's explanation of its own scores on the episode
// page (a capability): each metric with its definition, the paper and
// section, and the numbers it was computed from, and a check that the stored
// headline follows from them. A benchmark without one is explained as
// MedEvoEval's manager scores.
type Explainer interface {
	Explain(sc clinic.Scores, c *clinic.Case, s settings.Settings) ScoreView
}

// ScoreView explains an episode's scores: each part with the formula and the
// numbers it was computed from.
type ScoreView struct {
	clinic.Scores
	Lines []ScoreLine
	// Evidence and Plan are the case's key points, each marked matched or not
	// (empty when the case could not be read).
	Evidence []KeyPoint
	Plan     []KeyPoint
	// Check says whether the scoring code, given the stored judgement, gives
	// the stored scores again.
	Check string
	// StrictHow says what strict, pass and the grade mean under the profile.
	StrictHow string
	// Explained are the profile metrics that have a line of their own.
	Explained map[string]bool
	// KeyPoints: the profile scores evidence and plan against the case's
	// key points (MedEvoEval C.1), shown matched and missed.
	KeyPoints bool
}

// ScoreLine is one score: its name, its value as shown, and how it was computed.
type ScoreLine struct{ Name, Value, How string }

// KeyPoint is a key point of the answer key, matched by the output or not.
type KeyPoint struct {
	Text    string
	Matched bool
}

// Explain spells out how each score was computed (the episode page, and
// the explanations of an inspect log's scores). With the case and the run's
// settings it shows the numbers of each formula and checks them with
// grader.Combine on the stored judgement; without them it shows what was
// stored.
func Explain(sc clinic.Scores, c *clinic.Case, set *settings.Settings, b bench.Benchmark) ScoreView {
	// A benchmark this build does not have (nil) is explained as the manager's scores.
	if e, ok := b.(Explainer); ok && set != nil {
		return e.Explain(sc, c, *set)
	}
	v := ScoreView{Scores: sc, StrictHow: "strict: the diagnosis grade is 1; grade = round(100·S)", KeyPoints: true}
	part := func(p *float64) string {
		if p == nil {
			return "not scored"
		}
		return fmt.Sprintf("%.3f", *p)
	}
	v.Lines = append(v.Lines, ScoreLine{"diagnosis", fmt.Sprintf("%.2f", sc.Diagnosis),
		"grade of the first named diagnosis against the reference and its acceptable names: 1, 0.75, 0.5, 0.25 or 0 (MedEvoEval C.1)"})
	if c == nil || set == nil {
		v.Lines = append(v.Lines, ScoreLine{"evidence", part(sc.Evidence), fmt.Sprintf("%d key points matched, %d items hallucinated", len(sc.Matched), len(sc.Halluc))},
			ScoreLine{"plan", part(sc.Plan), fmt.Sprintf("%d key points matched, %d items unsafe", len(sc.PlanHit), len(sc.Unsafe))},
			ScoreLine{"S", fmt.Sprintf("%.4f", sc.S), "weighted over the parts that were scored"},
			ScoreLine{"U", fmt.Sprintf("%.4f", sc.U), fmt.Sprintf("from S and T=%d, E=%d, R=%.2f", sc.T, sc.E, sc.R)})
		return v
	}
	w, e := set.Scoring, set.Episode
	for _, k := range c.Manager.Evidence {
		v.Evidence = append(v.Evidence, KeyPoint{k, slices.Contains(sc.Matched, k)})
	}
	for _, k := range c.Manager.Management {
		v.Plan = append(v.Plan, KeyPoint{k, slices.Contains(sc.PlanHit, k)})
	}
	if sc.Evidence != nil {
		// MedEvoEval C.1: S_evi = max(0, (m − λ_evi·h)/K).
		v.Lines = append(v.Lines, ScoreLine{"evidence", part(sc.Evidence), fmt.Sprintf("S_evi = max(0, (m − λ·h)/K) = max(0, (%d − %g·%d)/%d) (MedEvoEval C.1)",
			len(sc.Matched), w.Lambda, len(sc.Halluc), len(c.Manager.Evidence))})
	} else {
		v.Lines = append(v.Lines, ScoreLine{"evidence", "not scored", "not scored: the case has no evidence key points, or the profile does not score evidence"})
	}
	if sc.Plan != nil {
		// MedEvoEval C.1: S_plan = max(0, (m − μ_plan·h)/K) over plan and follow-up items.
		v.Lines = append(v.Lines, ScoreLine{"plan", part(sc.Plan), fmt.Sprintf("S_plan = max(0, (m − μ·u)/K) = max(0, (%d − %g·%d)/%d) over plan and follow-up (MedEvoEval C.1)",
			len(sc.PlanHit), w.Mu, len(sc.Unsafe), len(c.Manager.Management))})
	} else {
		v.Lines = append(v.Lines, ScoreLine{"plan", "not scored", "not scored: the case has no management key points, or the profile does not score the plan"})
	}
	// MedEvoEval §4 and C.1: S = w_d·S_diag + w_e·S_evi + w_p·S_plan, over the parts scored.
	num, den := fmt.Sprintf("%g·%.2f", w.Diagnosis, sc.Diagnosis), fmt.Sprintf("%g", w.Diagnosis)
	if sc.Evidence != nil {
		num, den = num+fmt.Sprintf(" + %g·%.3f", w.Evidence, *sc.Evidence), den+fmt.Sprintf(" + %g", w.Evidence)
	}
	if sc.Plan != nil {
		num, den = num+fmt.Sprintf(" + %g·%.3f", w.Plan, *sc.Plan), den+fmt.Sprintf(" + %g", w.Plan)
	}
	v.Lines = append(v.Lines, ScoreLine{"S", fmt.Sprintf("%.4f", sc.S), fmt.Sprintf("(%s) / (%s); pass when S ≥ %g (MedEvoEval C.1)", num, den, w.PassAt)})
	// MedEvoEval §4 and C.2: U = w1·S − w2·T/Tmax − w3·E/Emax − w4·R.
	v.Lines = append(v.Lines, ScoreLine{"U", fmt.Sprintf("%.4f", sc.U), fmt.Sprintf("U = %g·S − %g·T/Tmax − %g·E/Emax − %g·R = %g·%.4f − %g·%d/%d − %g·%d/%d − %g·%.2f (MedEvoEval C.2)",
		w.US, w.UT, w.UE, w.UR, w.US, sc.S, w.UT, sc.T, e.MaxTurns, w.UE, sc.E, e.MaxTests, w.UR, sc.R)})
	v.Lines = append(v.Lines, ScoreLine{"process", fmt.Sprintf("T=%d E=%d R=%.2f", sc.T, sc.E, sc.R),
		"T: non-final actions; E: billable test requests; R: (unavailable + unparseable + duplicate)/E (MedEvoEval C.3)"})
	j := grader.Judgement{Diagnosis: sc.Diagnosis, Matched: sc.Matched, Hallucinated: sc.Halluc, PlanMatched: sc.PlanHit, Unsafe: sc.Unsafe}
	again := grader.Combine(c, *set, nil, clinic.FinalOutput{}, j)
	switch {
	case math.Abs(again.S-sc.S) < 1e-9:
		v.Check = "the scoring code gives the stored S again from these numbers"
	default:
		v.Check = fmt.Sprintf("the scoring code gives S = %.4f from these numbers, not the stored %.4f (a judge other than the rubric, or scoring settings changed since)", again.S, sc.S)
	}
	return v
}

// Line is a ScoreLine.
func Line(name, value, how string) ScoreLine { return ScoreLine{Name: name, Value: value, How: how} }
