package evolver_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/evolver"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/llm/llmtest"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/textmatch"
)

// scripted is the evolver role on a fake OpenAI-compatible endpoint that
// answers the n-th request with replies[n], and the server to read the
// requests from.
func scripted(t *testing.T, replies ...string) (evolver.Model, *llmtest.Server) {
	t.Helper()
	srv := llmtest.New(t)
	srv.Script = func(n int, _ llmtest.Request) *llmtest.Reply {
		require.Less(t, n, len(replies), "more model requests than the script holds")
		return &llmtest.Reply{Status: 200, Content: replies[n]}
	}
	return llm.Method{C: srv.Client(t, "evolver", nil)}, srv
}

// bank is a memory lineage in a slice: cards written and evicted by
// episode, searched by word overlap (the mechanical forms' similarity).
type bank struct{ cards []clinic.Card }

func (b *bank) Search(_ context.Context, text string, k int, kinds ...clinic.CardKind) ([]memory.Hit, error) {
	var hits []memory.Hit
	for _, c := range b.cards {
		if c.EvictedEpisode != 0 || (len(kinds) > 0 && !slices.Contains(kinds, c.Kind)) {
			continue
		}
		hits = append(hits, memory.Hit{Card: c, Score: textmatch.Jaccard(textmatch.Set(text), textmatch.Set(c.SearchText))})
	}
	return memory.TopK(hits, k), nil
}

func (b *bank) Cards(_ context.Context, ids []string) ([]clinic.Card, error) {
	var out []clinic.Card
	for _, id := range ids {
		for _, c := range b.cards {
			if c.ID == id && c.EvictedEpisode == 0 {
				out = append(out, c)
			}
		}
	}
	return out, nil
}

// apply writes an output's cards and deletions at episode n, as runner.Apply does.
func (b *bank) apply(out evolver.Output, n int) {
	for i := range b.cards {
		if slices.Contains(out.Evict, b.cards[i].ID) && b.cards[i].EvictedEpisode == 0 {
			b.cards[i].EvictedEpisode = n
		}
	}
	b.cards = append(b.cards, out.Cards...)
}

func (b *bank) live(kind clinic.CardKind) []clinic.Card {
	var out []clinic.Card
	for _, c := range b.cards {
		if c.EvictedEpisode == 0 && c.Kind == kind {
			out = append(out, c)
		}
	}
	return out
}

const chest = "Tight chest pain when I walk uphill"

// episode is a graded episode on the chest presentation: a question on
// the triggers, an ECG, then the diagnosis dx; pass says whether S passed;
// labels grade the three turns.
func episode(n int, caseID, dx string, pass bool, labels ...grader.Label) evolver.Input {
	in := evolver.Input{Run: "r", Pass: 1, Stage: 1, Episode: n, CaseID: caseID, Opening: chest, WriteCards: true,
		Events: []clinic.Event{
			{Turn: 0, Action: clinic.Ask, Question: "What brings it on?", Topic: clinic.TopicTriggers, Status: clinic.StatusReturned, Reply: "Walking uphill.", RevealedFacts: []string{"f1"}},
			{Turn: 1, Action: clinic.RequestTest, Test: "ecg", Status: clinic.StatusReturned, Reply: "changes on exertion"},
			{Turn: 2, Action: clinic.Finalize, Status: clinic.StatusFinalized, Final: &clinic.FinalOutput{Diagnosis: []string{dx}}},
		},
		Final: clinic.FinalOutput{Diagnosis: []string{dx}}, Outcome: grader.Outcome{S: 0.3, Pass: pass, Cost: 55}}
	if pass {
		in.Outcome.S = 0.9
	}
	for i, l := range labels {
		in.Grade.Actions = append(in.Grade.Actions, grader.ActionGrade{Turn: i, Action: in.Events[i].Action, Label: l, Rationale: "graded"})
	}
	return in
}

func cfg() settings.Evolver { return settings.Default().Evolver }

func TestNewNamesTheKeyOfAnUnknownMethod(t *testing.T) {
	c := cfg()
	c.Method = "hillclimb"
	_, err := evolver.New(c, evolver.Env{})
	require.ErrorContains(t, err, `evolver.method "hillclimb", want one of clinevo, static, transcripts, rag, mem0`)
	s := settings.Default()
	s.Evolver.Method = "hillclimb"
	require.ErrorContains(t, s.Validate(), `evolver.method "hillclimb", want one of clinevo, static`)
	for _, m := range settings.Methods {
		c.Method = m
		e, err := evolver.New(c, evolver.Env{})
		require.NoError(t, err, m)
		require.NotNil(t, e, m)
	}
}

func TestStaticAndTranscripts(t *testing.T) {
	ctx := context.Background()
	rules := []clinic.Rule{{ID: "r1", Text: "ASK triggers"}}
	in := episode(1, "c1", "angina", true, grader.HighYield, grader.HighYield, grader.HighYield)
	out, err := evolver.Static{}.Evolve(ctx, cfg(), in, nil, rules)
	require.NoError(t, err)
	require.Equal(t, rules, out.Rules)
	require.Empty(t, out.Cards)
	out, err = evolver.Transcripts{}.Evolve(ctx, cfg(), in, nil, nil)
	require.NoError(t, err)
	require.Len(t, out.Cards, 1)
	require.Equal(t, clinic.CardSummary, out.Cards[0].Kind)
	require.Equal(t, "angina", out.Cards[0].Diagnosis)
}

// Mem0's update phase: a memory contradicted by a later episode is updated, not
// duplicated: the old card is evicted and one card holds the correction.
func TestMem0UpdatesAContradictedMemory(t *testing.T) {
	ctx := context.Background()
	b := &bank{}
	m := evolver.Mem0{Bank: b}
	first := episode(1, "c1", "angina", true)
	out, err := m.Evolve(ctx, cfg(), first, nil, nil)
	require.NoError(t, err)
	require.Equal(t, []string{"mem0 ADD"}, out.Edits)
	b.apply(out, 1)
	old := b.live(clinic.CardMemory)
	require.Len(t, old, 1)
	require.Equal(t, "angina", old[0].Diagnosis)

	// The same presentation, diagnosed angina again, graded wrong: the
	// write-back says pericarditis.
	second := episode(2, "c2", "angina", false)
	out, err = m.Evolve(ctx, cfg(), second, &grader.Key{Diagnosis: "pericarditis", DiagnosisGrade: 0}, nil)
	require.NoError(t, err)
	require.Equal(t, []string{"mem0 UPDATE " + old[0].ID}, out.Edits)
	require.Equal(t, []string{old[0].ID}, out.Evict)
	b.apply(out, 2)
	now := b.live(clinic.CardMemory)
	require.Len(t, now, 1, "updated, not duplicated")
	require.Equal(t, "pericarditis", now[0].Diagnosis)
	require.Equal(t, "angina", now[0].Avoid)
	require.NotEqual(t, old[0].ID, now[0].ID, "the update is a new card: memory as of episode 1 still holds the old one")

	// Pericarditis confirmed: nothing new to remember.
	out, err = m.Evolve(ctx, cfg(), episode(3, "c3", "pericarditis", true), &grader.Key{Diagnosis: "pericarditis", DiagnosisGrade: 1}, nil)
	require.NoError(t, err)
	require.Equal(t, []string{"mem0 NOOP " + now[0].ID}, out.Edits, "memory already says it")
	require.Empty(t, out.Cards)
	require.Empty(t, out.Evict)
}

// Mem0 with the evolver role: the model extracts, then decides per fact
// against the similar memories it is shown.
func TestMem0ModelDecidesTheOperation(t *testing.T) {
	ctx := context.Background()
	b := &bank{}
	b.apply(evolver.Output{Cards: []clinic.Card{{CardHint: clinic.CardHint{ID: "m1", Kind: clinic.CardMemory, Text: "chest pain uphill is angina", Diagnosis: "angina"},
		SearchText: chest + " angina", CreatedEpisode: 1}}}, 1)
	model, srv := scripted(t,
		`{"facts":[{"text":"uphill chest pain was pericarditis, not angina","diagnosis":"pericarditis","avoid":"angina"}]}`,
		`{"op":"UPDATE","id":"m1","text":"uphill chest pain: think of pericarditis before angina"}`)
	c := cfg()
	c.SameAt = 0.2
	out, err := evolver.Mem0{Model: model, Bank: b}.Evolve(ctx, c, episode(2, "c2", "angina", false), nil, nil)
	require.NoError(t, err)
	require.Len(t, srv.Requests(), 2, "extract, then one update decision")
	require.Contains(t, srv.Requests()[1].User, `"m1"`, "the similar memory is shown to the model")
	require.Equal(t, []string{"m1"}, out.Evict)
	require.Len(t, out.Cards, 1)
	require.Equal(t, "uphill chest pain: think of pericarditis before angina", out.Cards[0].Text)
	require.Equal(t, "pericarditis", out.Cards[0].Diagnosis)
}

// ExpRAG: one experience per episode (input, output, feedback), no model.
func TestExpRAGWritesTheExperience(t *testing.T) {
	out, err := evolver.ExpRAG{}.Evolve(context.Background(), cfg(), episode(1, "c1", "angina", false), nil, nil)
	require.NoError(t, err)
	require.Len(t, out.Cards, 1)
	c := out.Cards[0]
	require.Equal(t, clinic.CardExperience, c.Kind)
	for _, part := range []string{"TASK " + chest, "DID asked triggers", "FEEDBACK failed"} {
		require.Contains(t, c.Text, part)
	}
	require.Equal(t, "angina", c.Avoid, "a failed diagnosis is kept to avoid")
	require.Empty(t, c.Diagnosis)
}

// ICL: the correct-only variant (Self-StreamICL) keeps the input and the
// answer of a passed episode and nothing of a failed one; the all variant
// keeps a failed one too, its answer to avoid, its feedback in the text.
func TestICLKeepsTheExamplesItsVariantKeeps(t *testing.T) {
	ctx := context.Background()
	c := cfg()
	for _, v := range []struct {
		episodes string
		pass     bool
		cards    int
	}{{settings.ICLCorrect, true, 1}, {settings.ICLCorrect, false, 0}, {settings.ICLAll, true, 1}, {settings.ICLAll, false, 1}, {"", false, 0}} {
		c.ICL.Episodes = v.episodes
		out, err := evolver.ICL{}.Evolve(ctx, c, episode(1, "c1", "angina", v.pass), nil, nil)
		require.NoError(t, err)
		require.Len(t, out.Cards, v.cards, "%s, pass %v", v.episodes, v.pass)
	}
	c.ICL.Episodes = settings.ICLAll
	out, err := evolver.ICL{}.Evolve(ctx, c, episode(1, "c1", "angina", false), nil, nil)
	require.NoError(t, err)
	ex := out.Cards[0]
	require.Equal(t, clinic.CardExample, ex.Kind)
	require.Equal(t, chest+"\nWhat brings it on? Walking uphill.", ex.Context, "the input: the presentation and what the patient told")
	require.Equal(t, ex.Context+"\nAnswer: angina (feedback: not correct)", ex.Text)
	require.Equal(t, "angina", ex.Avoid)
	require.Empty(t, ex.Diagnosis)
	require.Equal(t, []string{clinic.TopicTriggers}, ex.Ask)
	c.ICL.Episodes = settings.ICLCorrect
	out, err = evolver.ICL{}.Evolve(ctx, c, episode(2, "c2", "angina", true), nil, nil)
	require.NoError(t, err)
	require.Equal(t, "angina", out.Cards[0].Diagnosis)
	require.True(t, strings.HasSuffix(out.Cards[0].Text, "Answer: angina (feedback: correct)"))
	c.ICL.Episodes = "some"
	s := settings.Default()
	s.Evolver = c
	require.ErrorContains(t, s.Validate(), `evolver.icl.episodes "some", want correct or all`)
}

// ReMem: the refine step prunes a retrieved experience that misled the
// episode, mechanically and as the model says.
func TestReMemPrunesTheExperienceThatMisled(t *testing.T) {
	ctx := context.Background()
	b := &bank{}
	b.apply(evolver.Output{Cards: []clinic.Card{
		{CardHint: clinic.CardHint{ID: "x1", Kind: clinic.CardExperience, Text: "chest pain: angina", Diagnosis: "angina", Context: chest}, SearchText: chest, CreatedEpisode: 1},
		{CardHint: clinic.CardHint{ID: "x2", Kind: clinic.CardExperience, Text: "chest pain: reflux", Diagnosis: "reflux", Context: "burning after meals"}, SearchText: chest + " reflux", CreatedEpisode: 1},
	}}, 1)
	in := episode(2, "c2", "angina", false)
	in.Events[0].RetrievedCards = []string{"x1", "x2"}
	out, err := evolver.ReMem{Bank: b}.Evolve(ctx, cfg(), in, nil, nil)
	require.NoError(t, err)
	require.Equal(t, []string{"x1"}, out.Evict, "x1 recommended the diagnosis that failed; x2 did not")
	require.Len(t, out.Cards, 1)

	model, srv := scripted(t, `{"think":"x2 was irrelevant noise","prune":["x2","unknown"],"memory":"uphill chest pain: angina was wrong here"}`)
	out, err = evolver.ReMem{Model: model, Bank: b}.Evolve(ctx, cfg(), in, nil, nil)
	require.NoError(t, err)
	require.Len(t, srv.Requests(), 1)
	require.Equal(t, []string{"x2"}, out.Evict, "only a retrieved experience can be pruned")
	require.Equal(t, "uphill chest pain: angina was wrong here", out.Cards[0].Text)
}

// ReMem refines between turns (think, act, refine within the episode's
// loop): before a turn, it prunes a retrieved experience whose advice the
// doctor followed and that yielded nothing, and the older of two that say
// the same; what it pruned is not pruned again, and the episode's update
// evicts it.
func TestReMemRefinesBetweenTurns(t *testing.T) {
	ctx := context.Background()
	b := &bank{}
	b.apply(evolver.Output{Cards: []clinic.Card{
		{CardHint: clinic.CardHint{ID: "x1", Kind: clinic.CardExperience, Text: "burning after meals: order a ct", Diagnosis: "reflux", Context: "burning after meals", Tests: []string{"ct"}}, CreatedEpisode: 1},
		{CardHint: clinic.CardHint{ID: "x2", Kind: clinic.CardExperience, Text: "chest pain uphill: angina", Diagnosis: "angina", Context: chest}, CreatedEpisode: 1},
		{CardHint: clinic.CardHint{ID: "x3", Kind: clinic.CardExperience, Text: "chest pain uphill again: angina", Diagnosis: "angina", Context: chest}, CreatedEpisode: 2},
		{CardHint: clinic.CardHint{ID: "x4", Kind: clinic.CardExperience, Text: "cough at night: asthma", Diagnosis: "asthma", Context: "cough at night"}, CreatedEpisode: 2},
	}}, 2)
	events := []clinic.Event{
		{Turn: 0, Action: clinic.Ask, Topic: clinic.TopicTriggers, Status: clinic.StatusReturned, Reply: "Walking uphill.", RevealedFacts: []string{"f1"},
			RetrievedCards: []string{"x1", "x2", "x3", "x4"}},
		{Turn: 1, Action: clinic.RequestTest, Test: "ct", Status: clinic.StatusUnavailable, RetrievedCards: []string{"x1", "x2", "x3", "x4"}},
	}
	r := evolver.ReMem{Bank: b}
	none, err := r.RefineTurn(ctx, cfg(), evolver.Turn{Opening: chest})
	require.NoError(t, err)
	require.Empty(t, none, "nothing is retrieved before the first turn")
	pruned, err := r.RefineTurn(ctx, cfg(), evolver.Turn{Opening: chest, Events: events})
	require.NoError(t, err)
	require.Equal(t, []string{"x1", "x2"}, pruned, "x1's ct was ordered and did not come back; x2 says what the newer x3 says")

	// The next turn's refine reads the pruning on the turn's event.
	events = append(events, clinic.Event{Turn: 2, Action: clinic.Ask, Topic: clinic.TopicTriggers, Status: clinic.StatusReturned, Reply: "Walking uphill.",
		RevealedFacts: []string{"f1"}, PrunedCards: pruned, RetrievedCards: []string{"x3", "x4"}})
	again, err := r.RefineTurn(ctx, cfg(), evolver.Turn{Opening: chest, Events: events})
	require.NoError(t, err)
	require.Empty(t, again, "x3 and x4 neither misled nor repeat another")

	// With the evolver role the model decides, over the experiences still in use.
	model, srv := scripted(t, `{"think":"asthma is not this presentation","prune":["x4","x1","zz"]}`)
	got, err := evolver.ReMem{Model: model, Bank: b}.RefineTurn(ctx, cfg(), evolver.Turn{Opening: chest, Events: events})
	require.NoError(t, err)
	require.Len(t, srv.Requests(), 1)
	require.Contains(t, srv.Requests()[0].User, "test ct:  (unavailable)", "the model reads the turns so far with their outcomes")
	require.NotContains(t, srv.Requests()[0].User, `"x1"`, "a pruned experience is not shown again")
	require.Equal(t, []string{"x4"}, got, "only an experience still in use can be pruned")

	// The episode's update evicts what the turns pruned, and the last
	// refine reads only what is still in use.
	in := episode(3, "c3", "angina", true)
	in.Events = events
	out, err := evolver.ReMem{Bank: b}.Evolve(ctx, cfg(), in, nil, nil)
	require.NoError(t, err)
	require.Equal(t, []string{"x1", "x2", "x3"}, out.Evict, "x1 and x2 pruned between turns; x3 is the one the new experience repeats")
	require.Contains(t, out.Edits, "remem prune x1 (turn 2)")
}

// EvoTest: after every episode the whole configuration is rewritten from
// the transcript and its score alone; labels are not read.
func TestEvoTestRewritesTheWholeConfiguration(t *testing.T) {
	ctx := context.Background()
	// Labels that say the opposite of the outcome: EvoTest must not read them.
	pass := episode(1, "c1", "angina", true, grader.CriticalError, grader.CriticalError, grader.CriticalError)
	out, err := evolver.EvoTest{}.Evolve(ctx, cfg(), pass, nil, nil)
	require.NoError(t, err)
	var heads []string
	for _, r := range out.Rules {
		d, ok := clinic.ParseRule(r.Text)
		require.True(t, ok, r.Text)
		heads = append(heads, d.Verb+" "+d.Target)
	}
	require.Equal(t, []string{"ASK triggers", "REQUEST_TEST ecg"}, heads)
	require.Len(t, out.Cards, 1, "the passing episode's state-action choices are logged")
	require.Equal(t, []string{"ecg"}, out.Cards[0].Tests)

	fail := episode(2, "c2", "angina", false, grader.HighYield, grader.HighYield, grader.HighYield)
	next, err := evolver.EvoTest{}.Evolve(ctx, cfg(), fail, nil, out.Rules)
	require.NoError(t, err)
	require.Empty(t, next.Rules, "the rules in force for this presentation did not help")
	require.Empty(t, next.Cards)

	model, srv := scripted(t, `{"rules":["ASK about exertion","REQUEST_TEST ecg WHEN chest pain uphill"],"memories":[]}`)
	got, err := evolver.EvoTest{Model: model}.Evolve(ctx, cfg(), fail, nil, []clinic.Rule{{ID: "old", Text: "ASK about diet"}})
	require.NoError(t, err)
	require.Contains(t, srv.Requests()[0].User, "S=0.30", "the model reads the transcript-level score")
	require.Equal(t, []string{"ASK about exertion", "REQUEST_TEST ecg WHEN chest pain uphill"}, []string{got.Rules[0].Text, got.Rules[1].Text})
	require.Contains(t, got.Edits, "retire old", "the model's book replaces the old one whole")
}

// ACE: the reflector increments a bullet's counter; the curator merges a
// near-duplicate insight into it and de-duplicates the playbook.
func TestACECountsAndMergesBullets(t *testing.T) {
	ctx := context.Background()
	book := []clinic.Rule{
		{ID: "b1", Text: "REQUEST_TEST ecg WHEN tight chest pain walk uphill: it changed the assessment", Created: 1, Helpful: 1},
		{ID: "b2", Text: "ASK diet WHEN burning after meals: told nothing", Created: 1},
	}
	in := episode(2, "c2", "angina", true, grader.LowYield, grader.HighYield, grader.HighYield)
	out, err := evolver.ACE{}.Evolve(ctx, cfg(), in, nil, book)
	require.NoError(t, err)
	b1 := out.Rules[slices.IndexFunc(out.Rules, func(r clinic.Rule) bool { return r.ID == "b1" })]
	// +1 tagged helpful by the reflector (the ECG was HIGH_YIELD), +1 the
	// curator's reinforcement: the reflector's insight "REQUEST_TEST ecg
	// WHEN ..." near-duplicates b1 instead of becoming a new bullet.
	require.Equal(t, 3, b1.Helpful)
	require.Len(t, out.Rules, 2, "no duplicate bullet was added")
	require.Contains(t, out.Edits, "ace helpful b1")
	require.Contains(t, out.Edits, "ace reinforce b1")

	// Grow and refine: two near-identical bullets become one, counters summed.
	c := cfg()
	merged, log, _ := evolver.Curate([]clinic.Rule{
		{ID: "a", Text: "ASK triggers WHEN chest pain uphill", Created: 1, Helpful: 2},
		{ID: "b", Text: "ASK triggers WHEN chest pain walking uphill", Created: 3, Helpful: 1, Harmful: 1},
	}, nil, 4, c, nil)
	require.Equal(t, []clinic.Rule{{ID: "a", Text: "ASK triggers WHEN chest pain uphill", Created: 1, Helpful: 3, Harmful: 1}}, merged)
	require.Equal(t, []string{"ace merge b into a"}, log)

	// With the evolver role the model tags and proposes; the curator stays mechanical.
	model, _ := scripted(t, `{"tags":[{"id":"b2","tag":"harmful"}],"insights":["ASK about exertion before ordering imaging"]}`)
	out, err = evolver.ACE{Model: model}.Evolve(ctx, cfg(), in, nil, book)
	require.NoError(t, err)
	require.Equal(t, 1, out.Rules[1].Harmful)
	require.Equal(t, "ASK about exertion before ordering imaging", out.Rules[2].Text)
	require.Equal(t, 1, out.Rules[2].Helpful)
}

// GEPA: the Pareto front over development cases keeps the candidates best
// on some case that nothing dominates; the parent is drawn from it.
func TestGEPAKeepsAParetoFront(t *testing.T) {
	pool := []evolver.Candidate{
		{Scores: []float64{1, 0, 0.5}},     // 0: best on case 1 (and 3)
		{Scores: []float64{0, 1, 0.5}},     // 1: best on case 2 (and 3)
		{Scores: []float64{0.4, 0.4, 0.4}}, // 2: best nowhere, though its mean is close
		{Scores: []float64{1, 0, 0.4}},     // 3: tied best on case 1, dominated by 0
	}
	require.Equal(t, []int{0, 1}, evolver.ParetoFront(pool))
	seen := map[int]bool{}
	for slot := range 20 {
		p := evolver.GEPAParent("run", pool, 1, slot)
		require.Contains(t, []int{0, 1}, p)
		seen[p] = true
		require.Equal(t, p, evolver.GEPAParent("run", pool, 1, slot), "the draw is deterministic")
	}
	require.Len(t, seen, 2, "both front members are drawn")
	require.True(t, evolver.GEPAAccept(pool[2], pool[0]), "1.5 beats 1.2 in total")
	require.False(t, evolver.GEPAAccept(pool[0], pool[3]), "1.4 does not beat 1.5")
	require.False(t, evolver.GEPAAccept(pool[0], pool[0]), "a tie is no improvement")

	ctx := context.Background()
	fb := []evolver.Input{episode(1, "d1", "angina", true, grader.HighYield, grader.HighYield, grader.HighYield)}
	child, err := evolver.GEPA{}.GEPAChild(ctx, cfg(), evolver.Candidate{}, fb, 1, 0)
	require.NoError(t, err)
	require.NotEmpty(t, child, "the mechanical reflection turns the graded episode into rules")
	for _, r := range child {
		require.True(t, strings.HasPrefix(r.ID, "g1-c0-"), r.ID)
	}
	model, srv := scripted(t, `{"rules":["ASK triggers WHEN chest pain","AVOID_TEST ct WHEN chest pain"]}`)
	child, err = evolver.GEPA{Model: model}.GEPAChild(ctx, cfg(), evolver.Candidate{Rules: []clinic.Rule{{ID: "p1", Text: "ASK triggers WHEN chest pain"}}}, fb, 2, 1)
	require.NoError(t, err)
	require.Contains(t, srv.Requests()[0].User, "HIGH_YIELD", "the reflection reads the graded actions")
	require.Equal(t, []clinic.Rule{{ID: "p1", Text: "ASK triggers WHEN chest pain"}, {ID: "g2-c1-2", Text: "AVOID_TEST ct WHEN chest pain"}}, child)
}

// EvoPrompt: roulette selection, crossover and mutation make a child; the
// next population is the best of parents and children.
func TestEvoPromptBreedsAndSelects(t *testing.T) {
	a := evolver.Candidate{Rules: []clinic.Rule{{ID: "a1", Text: "ASK triggers WHEN chest"}, {ID: "a2", Text: "AVOID_TEST ct WHEN chest"}}, Scores: []float64{0.9, 0.7}}
	b := evolver.Candidate{Rules: []clinic.Rule{{ID: "b1", Text: "REQUEST_TEST ecg WHEN chest"}}, Scores: []float64{0.2, 0.1}}
	z := evolver.Candidate{Scores: []float64{0, 0}}
	require.Equal(t, []int{0, 1}, evolver.EvoPromptSurvivors([]evolver.Candidate{a, b, z}, 2))
	ctx := context.Background()
	c := cfg()
	p1, p2 := evolver.EvoPromptParents("run", []evolver.Candidate{a, b}, 1, 0)
	require.Equal(t, [2]int{p1, p2}, func() [2]int {
		x, y := evolver.EvoPromptParents("run", []evolver.Candidate{a, b}, 1, 0)
		return [2]int{x, y}
	}())
	child, err := evolver.EvoPrompt{}.EvoPromptChild(ctx, c, a, b, nil, 1, 0)
	require.NoError(t, err)
	require.NotEmpty(t, child)
	require.Equal(t, []string{"a1", "b1"}, []string{child[0].ID, child[1].ID}, "mechanical crossover takes rules in turn from each parent")
	fb := []evolver.Input{episode(1, "d1", "angina", true, grader.HighYield, grader.HighYield, grader.HighYield)}
	mutated, err := evolver.EvoPrompt{}.EvoPromptChild(ctx, c, a, b, fb, 1, 0)
	require.NoError(t, err)
	require.Len(t, mutated, 4, "a1, b1, a2 and one rule the graded development episode proposes")
	require.Equal(t, "g1-c0-m", mutated[3].ID)
	model, srv := scripted(t, `{"rules":["ASK triggers WHEN chest","ASK exertion WHEN chest"]}`)
	child, err = evolver.EvoPrompt{Model: model}.EvoPromptChild(ctx, c, a, b, nil, 1, 1)
	require.NoError(t, err)
	require.Contains(t, srv.Requests()[0].User, "Parent1")
	require.Equal(t, []clinic.Rule{{ID: "a1", Text: "ASK triggers WHEN chest"}, {ID: "g1-c1-2", Text: "ASK exertion WHEN chest"}}, child)
}

// GEPA's merge (system-aware crossover): two Pareto candidates with a common
// ancestor are combined rule by rule: a rule one of them changed from the
// ancestor takes the change, a rule both changed takes the better one's.
func TestGEPAMergesTwoParetoCandidates(t *testing.T) {
	r := func(id, text string) clinic.Rule { return clinic.Rule{ID: id, Text: text} }
	pool := []evolver.Candidate{
		{Rules: []clinic.Rule{r("a", "ASK onset"), r("b", "ASK diet")}, Scores: []float64{0.4, 0.4, 0.4}, Run: "seed"},
		// 1: best on case 3; retired b, added c, reworded a
		{Rules: []clinic.Rule{r("a", "ASK onset WHEN chest"), r("c", "REQUEST_TEST ecg WHEN chest")}, Scores: []float64{0.9, 0.4, 0.9}, Run: "x", Parents: []int{0}},
		// 2: best on case 1, a child of 1: kin, not merged with it
		{Rules: []clinic.Rule{r("a", "ASK onset WHEN chest")}, Scores: []float64{0.95, 0.1, 0.1}, Run: "z", Parents: []int{1}},
		// 3: best on case 2; kept b, added d, reworded a differently
		{Rules: []clinic.Rule{r("a", "ASK onset early"), r("b", "ASK diet"), r("d", "AVOID_TEST ct WHEN chest")}, Scores: []float64{0.4, 0.8, 0.4}, Run: "y", Parents: []int{0}},
	}
	require.Equal(t, []int{1, 2, 3}, evolver.ParetoFront(pool))
	m, ok := evolver.GEPAMerge(pool, nil, 12)
	require.True(t, ok)
	require.Equal(t, [3]int{1, 3, 0}, [3]int{m.I, m.J, m.Ancestor}, "1 and 2 are kin; 1 and 3 merge over the seed")
	require.Equal(t, []clinic.Rule{
		r("a", "ASK onset WHEN chest"),        // both reworded it: 1's, the better mean (0.73 > 0.53)
		r("c", "REQUEST_TEST ecg WHEN chest"), // 1 added it
		r("d", "AVOID_TEST ct WHEN chest"),    // 3 added it
	}, m.Rules, "b: 1 retired it, 3 kept it as the seed had it: retired")
	_, ok = evolver.GEPAMerge(pool, [][3]int{{1, 3, 0}}, 12)
	require.False(t, ok, "a merge is tried once")
	_, ok = evolver.GEPAMerge(pool, nil, 2)
	require.False(t, ok, "cut to B_P = 2 rules the merge is candidate 1 again: no merge")
	// Siblings that added the same rule under their own IDs: the merge holds
	// it once, and a merge that gives the doctor a parent's rules is none.
	twins := []evolver.Candidate{
		{Rules: []clinic.Rule{r("a", "ASK onset")}, Scores: []float64{0.4, 0.4}, Run: "seed"},
		{Rules: []clinic.Rule{r("a", "ASK onset"), r("x1", "ASK triggers"), r("z1", "ASK pain")}, Scores: []float64{0.9, 0.4}, Parents: []int{0}},
		{Rules: []clinic.Rule{r("a", "ASK onset"), r("x2", "ASK triggers"), r("y2", "ASK diet")}, Scores: []float64{0.4, 0.9}, Parents: []int{0}},
	}
	m, ok = evolver.GEPAMerge(twins, nil, 12)
	require.True(t, ok)
	require.Equal(t, []clinic.Rule{r("a", "ASK onset"), r("x1", "ASK triggers"), r("z1", "ASK pain"), r("y2", "ASK diet")}, m.Rules,
		"the rule both added is held once, under the first one's ID")
	_, ok = evolver.GEPAMerge(twins[:2:2], nil, 12)
	require.False(t, ok, "one child and its parent: no pair")
	twins[2].Rules = []clinic.Rule{r("a", "ASK onset"), r("x2", "ASK triggers")}
	_, ok = evolver.GEPAMerge(twins, nil, 12)
	require.False(t, ok, "the merge would be child 1's book in other IDs")
	require.True(t, evolver.GEPAMergeAccept(pool[1], pool[3], evolver.Candidate{Scores: []float64{0.9, 0.4, 0.9}}), "2.2 ties the better parent's 2.2")
	require.False(t, evolver.GEPAMergeAccept(pool[1], pool[3], evolver.Candidate{Scores: []float64{0.4, 0.9, 0.8}}))
}

// EvoTest selects the configuration to evolve from by UCB over episode
// returns and evolves its hyperparameters with its prompt.
func TestEvoTestSelectsByUCBAndEvolvesHyperparameters(t *testing.T) {
	nodes := []evolver.EvoTestNode{{Return: 0.3, Parent: -1, Hyper: evolver.Hyper{Temperature: 0.7}}}
	nodes, c1 := evolver.EvoTestChild(nodes, 0, nil, evolver.Hyper{Temperature: 0.5})
	nodes[c1].Return = 0.9
	// N = 2, ln 2 = 0.6931: root 0.3 + 0.5·√(0.6931/2) = 0.594; child 0.9 + 0.5·0.8·√0.6931 = 1.233.
	require.InDelta(t, 0.5943, evolver.EvoTestUCB(nodes, 0), 1e-4)
	require.InDelta(t, 1.2330, evolver.EvoTestUCB(nodes, c1), 1e-4)
	require.Equal(t, c1, evolver.EvoTestSelect(nodes))
	require.Equal(t, 1, nodes[0].Children)
	require.Equal(t, 1, nodes[c1].Depth)

	// Exploration: a well-explored best return loses to a less-explored root.
	// N = 4, ln 4 = 1.3863: root 0.6 + 0.5·√(1.3863/4) = 0.894; the best
	// return, 0.62 with 5 children at depth 1, 0.62 + 0.4·√(1.3863/6) = 0.812.
	tree := []evolver.EvoTestNode{{Return: 0.6, Parent: -1, Children: 3}, {Return: 0.2, Depth: 1}, {Return: 0.3, Depth: 1}, {Return: 0.62, Depth: 1, Children: 5}}
	require.InDelta(t, 0.8943, evolver.EvoTestUCB(tree, 0), 1e-4)
	require.InDelta(t, 0.8123, evolver.EvoTestUCB(tree, 3), 1e-4)
	require.Equal(t, 0, evolver.EvoTestSelect(tree))

	hot := evolver.Hyper{Temperature: 0.7}
	require.Equal(t, hot, evolver.EvoTestHyper(hot, true, nil), "a passing configuration keeps its temperature")
	require.InDelta(t, 0.5, evolver.EvoTestHyper(hot, false, nil).Temperature, 1e-12, "a failing one samples differently")
	require.InDelta(t, 0.4, evolver.EvoTestHyper(evolver.Hyper{Temperature: 0.2}, false, nil).Temperature, 1e-12)
	proposed := 1.4
	require.Equal(t, 1.0, evolver.EvoTestHyper(hot, false, &proposed).Temperature, "the model's proposal, clamped to [0, 1]")
}

// EvoTest evolves the UCB parent's rule book, read back through Book and
// checked against the digest the tree recorded, and takes the model's
// temperature (clamped) for the child.
func TestEvoTestEvolvesTheParentsBook(t *testing.T) {
	ctx := context.Background()
	pass := episode(3, "c3", "angina", true, grader.HighYield, grader.HighYield, grader.HighYield)
	good := []clinic.Rule{{ID: "g", Text: "ASK about exertion"}}
	nodes := []evolver.EvoTestNode{{Rules: nil, Return: 0.1, Plays: 1, Parent: -1, Hyper: evolver.Hyper{Temperature: 0.2}}}
	nodes, good1 := evolver.EvoTestChild(nodes, 0, good, evolver.Hyper{Temperature: 0.2})
	nodes[good1].Return, nodes[good1].Plays, nodes[good1].Episode = 0.9, 1, 1
	nodes, bad := evolver.EvoTestChild(nodes, good1, []clinic.Rule{{ID: "b", Text: "ASK about diet"}}, evolver.Hyper{Temperature: 0.4})
	nodes[bad].Episode = 2
	nodes[good1].Rules, nodes[bad].Rules = nil, nil // as stored: a child's book is its episode's proposal
	stored := &evolver.EvoTestTree{Nodes: nodes, Played: bad}
	var asked []int
	book := func(_ context.Context, n int) ([]clinic.Rule, error) { asked = append(asked, n); return good, nil }

	model, srv := scripted(t, `{"rules":["ASK about exertion","ASK about radiation"],"memories":[],"temperature":1.4}`)
	pass.Outcome.S = 0 // the played child failed badly: UCB goes back to the better node
	out, err := evolver.EvoTest{Model: model, Tree: stored, Book: book}.Evolve(ctx, cfg(), pass, nil, []clinic.Rule{{ID: "b", Text: "ASK about diet"}})
	require.NoError(t, err)
	require.Equal(t, []int{1}, asked, "the parent's book is read from the episode that evolved it")
	require.Contains(t, srv.Requests()[0].User, "ASK about exertion", "the model rewrites the parent's book")
	require.NotContains(t, srv.Requests()[0].User, "ASK about diet")
	child := out.EvoTest.Nodes[out.EvoTest.Played]
	require.Equal(t, good1, child.Parent)
	require.Equal(t, 1.0, *out.Temperature, "the model's temperature, clamped")
	require.Equal(t, "g", out.Rules[0].ID, "a line the parent's book held keeps its rule")
	require.Nil(t, child.Rules, "a child's book is not stored in the tree")

	_, err = evolver.EvoTest{Tree: stored, Book: func(context.Context, int) ([]clinic.Rule, error) { return []clinic.Rule{{ID: "x", Text: "other"}}, nil }}.
		Evolve(ctx, cfg(), pass, nil, nil)
	require.ErrorContains(t, err, "has digest", "a stored book that is not the node's is refused")
}
