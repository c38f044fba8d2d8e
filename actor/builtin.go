package actor

import (
	"context"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/clinevo/clinevo/catalog"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/textmatch"
)

// Builtin is the deterministic case-based clinician. It reads only the
// DoctorView: the presentation, what it has been told, the retrieved cards and
// the prompt rules. With no cards it takes a structured history, examines, and
// closes with a low-confidence syndromic diagnosis; with cards it asks, tests and
// diagnoses as the most similar cards suggest. Everything it gets better at comes
// from cards and rules.
type Builtin struct{}

var _ Doctor = Builtin{}

// StructuredHistory is the history a doctor without memory takes, in order.
var StructuredHistory = []string{clinic.TopicOnset, clinic.TopicCharacter, clinic.TopicAssociated, clinic.TopicTriggers, clinic.TopicPastHistory, clinic.TopicMedications}

// questions phrase each topic.
var questions = map[string]string{
	clinic.TopicOnset:       "When did this start, and did it come on suddenly or gradually?",
	clinic.TopicDuration:    "How long does it last, and does it come and go?",
	clinic.TopicCourse:      "How has it changed since it began, and has anything you tried helped?",
	clinic.TopicCharacter:   "Can you describe what it feels like?",
	clinic.TopicLocation:    "Where exactly is it, and does it spread anywhere?",
	clinic.TopicSeverity:    "How bad is it, and how is it affecting you?",
	clinic.TopicTriggers:    "What makes it worse or better?",
	clinic.TopicAssociated:  "Have you noticed any other symptoms along with it?",
	clinic.TopicSystems:     "Any other problems elsewhere in your body?",
	clinic.TopicPastHistory: "Have you had any medical conditions or operations in the past?",
	clinic.TopicMedications: "Are you taking any medicines, tablets or inhalers?",
	clinic.TopicAllergies:   "Do you have any allergies to medicines?",
	clinic.TopicFamily:      "Does anything run in your family?",
	clinic.TopicSocial:      "Do you smoke or drink, and what do you do for work?",
	clinic.TopicExposures:   "Have you travelled, been around animals or anyone ill, or been injured or exposed to anything unusual?",
}

// followUps ask about a topic a second time, in other words, for what the
// first answer left out.
var followUps = map[string]string{
	clinic.TopicOnset:       "Can you tell me more about how it all began?",
	clinic.TopicDuration:    "Is it there all the time, or does it come in episodes?",
	clinic.TopicCourse:      "Has it been getting better, worse, or coming back since it started?",
	clinic.TopicCharacter:   "If you had to describe it to a friend, what words would you use?",
	clinic.TopicLocation:    "Can you point to the worst spot, and does it move anywhere else?",
	clinic.TopicSeverity:    "How much is it stopping you from doing your usual things?",
	clinic.TopicTriggers:    "Is there anything that brings it on, or anything that eases it?",
	clinic.TopicAssociated:  "Have you had anything else with it, like a fever, feeling sick, a cough, a rash, or changes when you pass urine or open your bowels?",
	clinic.TopicSystems:     "Has anything else in your body changed lately?",
	clinic.TopicPastHistory: "Have you had anything like this before, or any long-standing illness?",
	clinic.TopicMedications: "Have you taken anything for it, or started any new medicines lately?",
	clinic.TopicAllergies:   "Have you ever reacted badly to a medicine?",
	clinic.TopicFamily:      "Has anyone in your close family had anything similar?",
	clinic.TopicSocial:      "How are things at home and at work, and do you smoke or drink?",
	clinic.TopicExposures:   "Could you have caught or picked up anything, from a trip, a bite, a pet, chemicals or an injury?",
}

// QuestionFor phrases a history topic as a question.
func QuestionFor(topic string) string {
	if q, ok := questions[topic]; ok {
		return q
	}
	return "Tell me about " + strings.ReplaceAll(topic, "_", " ") + "."
}

// Questions lists everything the doctor may ask about a topic, in the order it
// asks: the first question, then the follow-up. They are written for the
// patient; cards choose the topic, never the words.
func Questions(topic string) []string {
	if f, ok := followUps[topic]; ok {
		return []string{QuestionFor(topic), f}
	}
	return []string{QuestionFor(topic)}
}

type candidate struct {
	name  string
	score float64
	cards []clinic.CardHint
}

// Decide picks the next action.
func (Builtin) Decide(_ context.Context, v clinic.DoctorView) (Decision, error) {
	st := newState(v)
	cands := st.rank()
	working := workingNames(cands, v)
	out := func(o clinic.DoctorOutput) (Decision, error) {
		o.WorkingDiagnoses = working
		return Decision{Output: o}, nil
	}
	// Keep the last turn for FINALIZE.
	if v.Turn >= v.MaxTurns-1 || (st.finalizeBy > 0 && v.Turn >= st.finalizeBy) {
		return out(st.finalize(cands, working))
	}
	turnsLeft := v.MaxTurns - 1 - v.Turn

	// 1. History topics: learned ones when cards exist, a structured history otherwise.
	for _, t := range st.topicPlan(cands) {
		if !st.asked[t] && !st.avoidAsk[t] && turnsLeft > st.reserve(cands) {
			return out(clinic.DoctorOutput{Action: clinic.Ask, Topic: t, Question: QuestionFor(t), Utterance: QuestionFor(t),
				Rationale: []string{"history: " + strings.ReplaceAll(t, "_", " ")}, CardIDs: cardIDs(cands, 1)})
		}
	}
	// 2. Examination is free.
	if !st.requested[catalog.PhysicalKey] {
		return out(clinic.DoctorOutput{Action: clinic.RequestTest, TestName: catalog.PhysicalKey, Utterance: "I would like to examine you.",
			Rationale: []string{"a physical examination costs nothing and often separates the candidates"}})
	}
	// 3. Tests the leading candidate's cards call for, or a first-line
	// work-up (firstLine), within the test budget and what is left of the
	// money.
	if v.TestsUsed < TestAllowance(v) {
		for _, t := range Affordable(v, st.testPlan(cands)) {
			if ct := st.canonical(t); !st.requested[ct] && !st.avoid[ct] {
				return out(clinic.DoctorOutput{Action: clinic.RequestTest, TestName: t, Utterance: "I'd like to arrange a " + t + ".",
					Rationale: []string{"memory suggests " + t + " for this presentation"}, CardIDs: cardIDs(cands, 1)})
			}
		}
	}
	// 4. Follow-up questions on the topics that the leading candidate's evidence,
	// not yet supported by anything revealed, turns on. The card picks the topic;
	// the question is the doctor's own, written for the patient.
	if len(cands) > 0 {
		for _, t := range st.gapTopics(cands[0]) {
			for _, q := range Questions(t) {
				if !st.questions[textmatch.Normalize(q)] {
					return out(clinic.DoctorOutput{Action: clinic.Ask, Topic: t, Question: q, Utterance: q,
						Rationale: []string{"following up " + strings.ReplaceAll(t, "_", " ") + " for " + cands[0].name}, CardIDs: cardIDs(cands, 1)})
				}
			}
		}
	}
	return out(st.finalize(cands, working))
}

// state is what the doctor derives from the view.
type state struct {
	v          clinic.DoctorView
	asked      map[string]bool // topics
	questions  map[string]bool // normalised questions
	requested  map[string]bool // catalog names
	revealed   map[string]bool // tokens the doctor has seen
	catalog    *catalog.Catalog
	ruleAsk    []string
	ruleTests  []string
	avoid      map[string]bool // tests a rule or a memory entry warns against
	avoidAsk   map[string]bool // topics a rule or a memory entry says told nothing
	finalizeBy int
}

func newState(v clinic.DoctorView) *state {
	st := &state{v: v, asked: map[string]bool{}, questions: map[string]bool{}, requested: map[string]bool{}, avoid: map[string]bool{}, avoidAsk: map[string]bool{}}
	st.catalog = viewCatalog(v.Catalog)
	texts := []string{v.OpeningComplaint}
	for _, ex := range v.Exchanges {
		st.questions[textmatch.Normalize(ex.Question)] = true
		if ex.Topic != "" {
			st.asked[ex.Topic] = true
		}
		// A topic's question asked within a turn of several (the panel's)
		// covers the topic too.
		for t, q := range questions {
			if strings.Contains(textmatch.Normalize(ex.Question), textmatch.Normalize(q)) {
				st.asked[t] = true
			}
		}
		texts = append(texts, ex.Answer)
	}
	for _, r := range v.Results {
		st.requested[st.canonical(r.Test)] = true
		if r.Status == clinic.StatusReturned {
			texts = append(texts, r.Test+": "+r.Text)
		}
	}
	st.revealed = textmatch.Set(strings.Join(texts, " "))
	context := textmatch.Set(v.OpeningComplaint)
	for _, r := range v.Rules {
		d, ok := clinic.ParseRule(r)
		if !ok || (d.When != "" && textmatch.Coverage(textmatch.Set(d.When), context) < 0.5) {
			continue
		}
		switch d.Verb {
		case clinic.VerbAsk:
			st.ruleAsk = append(st.ruleAsk, d.Target)
		case clinic.VerbTest:
			st.ruleTests = append(st.ruleTests, st.canonical(d.Target))
		case clinic.VerbAvoidTest:
			st.avoid[st.canonical(d.Target)] = true
		case clinic.VerbAvoidAsk:
			st.avoidAsk[d.Target] = true
		case clinic.VerbFinalizeBy:
			if n, err := strconv.Atoi(d.Target); err == nil && n > 0 {
				st.finalizeBy = n
			}
		}
	}
	st.readEntries()
	return st
}

// adviceAt is how similar a memory entry's context must be to be followed.
const adviceAt = 0.3

// readEntries follows the memory entries (advice cards) of similar contexts:
// a HIGH_YIELD question or test is taken up like a rule's, a negative one
// (INEFFICIENT, CRITICAL_ERROR) avoided. Diagnoses on entries are ranked with
// the other cards.
func (st *state) readEntries() {
	for _, c := range st.v.Cards {
		if c.Kind != clinic.CardAdvice || c.Similarity < adviceAt {
			continue
		}
		kind, target, _ := strings.Cut(c.Action, ":")
		good := c.Grade == string(grader.HighYield)
		bad := c.Grade == string(grader.Inefficient) || c.Grade == string(grader.CriticalError)
		switch {
		case kind == string(clinic.Ask) && good && !slices.Contains(st.ruleAsk, target):
			st.ruleAsk = append(st.ruleAsk, target)
		case kind == string(clinic.Ask) && bad:
			st.avoidAsk[target] = true
		case kind == string(clinic.RequestTest) && good && !slices.Contains(st.ruleTests, st.canonical(target)):
			st.ruleTests = append(st.ruleTests, st.canonical(target))
		case kind == string(clinic.RequestTest) && bad:
			st.avoid[st.canonical(target)] = true
		}
	}
}

func (st *state) canonical(test string) string {
	if it, m := st.catalog.Lookup(test); m != catalog.MatchNone {
		return it.Name
	}
	return catalog.Key(test)
}

// catalogs caches the catalog of each distinct allowed list: views of one corpus
// share it, and building it per turn would dominate the doctor's time.
var catalogs sync.Map // joined names -> *catalog.Catalog

func viewCatalog(names []string) *catalog.Catalog {
	key := strings.Join(names, "\n")
	if c, ok := catalogs.Load(key); ok {
		return c.(*catalog.Catalog)
	}
	items := make([]catalog.Item, len(names))
	for i, n := range names {
		items[i] = catalog.Item{Name: n, Category: catalog.Infer(n)}
	}
	c, _ := catalogs.LoadOrStore(key, catalog.Default().Extend(items))
	return c.(*catalog.Catalog)
}

// rank scores candidate diagnoses: (0.3 + the best similarity among the cards
// that support a candidate) times (0.2 + the share of the candidate's evidence
// that the revealed information already shows), scaled down by the similarity
// of the cards that say to AVOID it.
func (st *state) rank() []candidate {
	type acc struct {
		candidate
		sim, avoid float64
		evidence   []string
	}
	by := map[string]*acc{}
	var order []string
	get := func(name string) *acc {
		k := textmatch.Normalize(name)
		if by[k] == nil {
			by[k] = &acc{candidate: candidate{name: name}}
			order = append(order, k)
		}
		return by[k]
	}
	for _, c := range st.v.Cards {
		if c.Similarity <= 0 {
			continue
		}
		if c.Avoid != "" {
			get(c.Avoid).avoid += c.Similarity
		}
		if c.Diagnosis != "" {
			a := get(c.Diagnosis)
			a.sim = max(a.sim, c.Similarity)
			a.cards = append(a.cards, c)
			for _, p := range c.Evidence {
				if !slices.Contains(a.evidence, p) {
					a.evidence = append(a.evidence, p)
				}
			}
		}
	}
	var out []candidate
	for _, k := range order {
		a := by[k]
		if len(a.cards) == 0 {
			continue
		}
		support := 0.0
		for _, p := range a.evidence {
			support += textmatch.Coverage(textmatch.Set(p), st.revealed)
		}
		if len(a.evidence) > 0 {
			support /= float64(len(a.evidence))
		}
		// What the patient and the tests showed outweighs how alike the presentations read.
		a.score = (0.3 + a.sim) * (0.2 + support) * (1 - min(0.9, a.avoid))
		if a.score > 0 {
			out = append(out, a.candidate)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		return out[i].name < out[j].name
	})
	return out
}

func workingNames(cands []candidate, v clinic.DoctorView) []string {
	var out []string
	for i, c := range cands {
		if i == 3 {
			break
		}
		out = append(out, c.name)
	}
	if len(out) == 0 {
		out = []string{undifferentiated(v)}
	}
	return out
}

// undifferentiated is the syndromic label a doctor without memory commits to.
func undifferentiated(v clinic.DoctorView) string {
	var words []string
	for _, w := range strings.Fields(textmatch.Normalize(v.OpeningComplaint)) {
		if len(textmatch.Tokens(w)) > 0 && len(words) < 4 {
			words = append(words, w)
		}
	}
	return "undifferentiated presentation: " + strings.Join(words, " ")
}

// topicPlan is the order of history topics to cover.
func (st *state) topicPlan(cands []candidate) []string {
	plan := append([]string(nil), st.ruleAsk...)
	if len(cands) == 0 {
		return append(plan, StructuredHistory...)
	}
	seen := map[string]bool{}
	for _, t := range plan {
		seen[t] = true
	}
	for i, c := range cands {
		if i == 2 {
			break
		}
		for _, card := range c.cards {
			for _, t := range card.Ask {
				if !seen[t] {
					seen[t] = true
					plan = append(plan, t)
				}
			}
		}
	}
	if len(plan) == 0 {
		plan = StructuredHistory[:3]
	}
	return plan
}

// testPlan lists tests the leading candidate's cards used, then tests its
// evidence names, then tests the rules ask for.
func (st *state) testPlan(cands []candidate) []string {
	var plan []string
	seen := map[string]bool{}
	add := func(t string) {
		t = st.canonical(t)
		if it, m := st.catalog.Lookup(t); m != catalog.MatchNone && !it.Free() && !seen[t] {
			seen[t] = true
			plan = append(plan, t)
		}
	}
	plan = append(plan, st.ruleTests...)
	for _, t := range st.ruleTests {
		seen[t] = true
	}
	if len(cands) == 0 {
		return st.withFirstLine(plan, seen)
	}
	for _, card := range cands[0].cards {
		for _, t := range card.Tests {
			add(t)
		}
	}
	for _, card := range cands[0].cards {
		for _, p := range card.Evidence {
			for _, t := range st.testsNamedIn(p) {
				add(t)
			}
		}
	}
	return st.withFirstLine(plan, seen)
}

// withFirstLine adds the first-line work-up to a plan that memory left
// empty, where the view shows no test list.
func (st *state) withFirstLine(plan []string, seen map[string]bool) []string {
	if len(plan) > 0 {
		return plan
	}
	for _, t := range st.firstLine() {
		if !seen[st.canonical(t)] {
			plan = append(plan, t)
		}
	}
	return plan
}

// lesionWords mark a presentation as a lesion, which a biopsy settles.
var lesionWords = textmatch.Set("lesion rash papule plaque nodule macule patch ulcer lump mass tumour tumor swelling eruption blister growth")

// firstLine is the work-up a doctor orders by free text when no test list is
// shown (the environments that hide the catalog) and nothing in memory names
// a test: the sections a case report's investigations are written in,
// laboratory tests first, then a biopsy for a lesion or imaging otherwise.
// Without it the built-in doctor ordered no test at all in such
// environments (none in 50 imported case reports), since only memory ever
// named one. A name the case does not hold is answered as the environment
// answers an unrecorded test, and the evolver's INEFFICIENT entries then
// teach the doctor to skip it. clinevo's choice.
func (st *state) firstLine() []string {
	if len(st.v.Catalog) > 0 {
		return nil // a doctor shown the list orders from it, as memory teaches
	}
	tests := []string{"laboratory tests", "imaging studies"}
	if textmatch.Coverage(lesionWords, st.revealed) > 0 {
		tests = []string{"laboratory tests", "biopsy", "imaging studies"}
	}
	return tests
}

// testsNamedIn finds catalog tests whose name or alias appears in a text.
func (st *state) testsNamedIn(text string) []string { return st.catalog.Mentions(text) }

// reserve is how many turns to keep for tests after the history.
func (st *state) reserve(cands []candidate) int {
	n := 0
	if !st.requested[catalog.PhysicalKey] {
		n++
	}
	if len(cands) == 0 && len(st.v.Catalog) > 0 {
		return n // shown a list and remembering nothing, the doctor plans no test
	}
	left := TestAllowance(st.v) - st.v.TestsUsed
	for _, t := range Affordable(st.v, st.testPlan(cands)) {
		if left <= 0 {
			break
		}
		if !st.requested[st.canonical(t)] {
			n++
			left--
		}
	}
	return n
}

// evidenceGaps lists a candidate's evidence points that nothing revealed supports yet.
func (c candidate) evidenceGaps(st *state) []string {
	var gaps []string
	seen := map[string]bool{}
	for _, card := range c.cards {
		for _, p := range card.Evidence {
			if seen[p] || len(st.testsNamedIn(p)) > 0 {
				continue
			}
			seen[p] = true
			if textmatch.Coverage(textmatch.Set(p), st.revealed) < 0.5 {
				gaps = append(gaps, p)
			}
		}
	}
	if len(gaps) > 2 {
		gaps = gaps[:2]
	}
	return gaps
}

// gapTopics are the history topics a candidate's evidence gaps point to, in
// order: the topics their words cue (episode.QuestionTopics), or, for a gap
// that cues none, the topics its cards asked about.
func (st *state) gapTopics(c candidate) []string {
	var out []string
	seen := map[string]bool{}
	add := func(ts ...string) {
		for _, t := range ts {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	for _, p := range c.evidenceGaps(st) {
		if ts := episode.QuestionTopics(p); len(ts) > 0 {
			add(ts...)
			continue
		}
		for _, card := range c.cards {
			add(card.Ask...)
		}
	}
	return out
}

// finalize commits to the leading candidate, citing only evidence the revealed
// information supports.
func (st *state) finalize(cands []candidate, working []string) clinic.DoctorOutput {
	o := clinic.DoctorOutput{Action: clinic.Finalize, Diagnosis: working, Utterance: "Here is what I think is going on and what we will do."}
	if len(cands) == 0 {
		o.Rationale = []string{"no similar experience in memory; low confidence"}
		o.Evidence = st.revealedStatements(3)
		o.Plan = []string{"symptomatic treatment and safety-netting advice", "review the results and the history at the next visit"}
		o.Followup = []string{"review in one to two weeks, sooner if worse"}
		return o
	}
	best := cands[0]
	o.Rationale = []string{"closest experience: " + best.name}
	o.CardIDs = cardIDs(cands, 1)
	seen := map[string]bool{}
	for _, card := range best.cards {
		for _, p := range card.Evidence {
			if !seen[p] && textmatch.Coverage(textmatch.Set(p), st.revealed) >= 0.5 {
				seen[p] = true
				o.Evidence = append(o.Evidence, p)
			}
		}
		for _, p := range card.Plan {
			if !slices.Contains(o.Plan, p) {
				o.Plan = append(o.Plan, p)
			}
		}
		for _, p := range card.Followup {
			if !slices.Contains(o.Followup, p) {
				o.Followup = append(o.Followup, p)
			}
		}
	}
	if len(o.Evidence) == 0 {
		o.Evidence = st.revealedStatements(3)
	}
	if len(o.Plan) == 0 {
		o.Plan = []string{"treat according to the working diagnosis", "safety-netting advice"}
	}
	if len(o.Followup) == 0 {
		o.Followup = []string{"review in one to two weeks, sooner if worse"}
	}
	return o
}

// revealedStatements quotes what the patient said and what tests showed.
func (st *state) revealedStatements(n int) []string {
	var out []string
	for _, ex := range st.v.Exchanges {
		if len(out) == n {
			return out
		}
		if ex.Answered {
			out = append(out, ex.Answer)
		}
	}
	for _, r := range st.v.Results {
		if len(out) == n {
			break
		}
		if r.Status == clinic.StatusReturned {
			out = append(out, r.Text)
		}
	}
	if len(out) == 0 {
		out = []string{st.v.OpeningComplaint}
	}
	return out
}

func cardIDs(cands []candidate, n int) []string {
	var ids []string
	for i, c := range cands {
		if i == n {
			break
		}
		for _, card := range c.cards {
			ids = append(ids, card.ID)
		}
	}
	return ids
}
