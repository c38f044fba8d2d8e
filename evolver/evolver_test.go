package evolver_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/evolver"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/settings"
)

func TestEditsAndCardsWithHiddenTextAreRejected(t *testing.T) {
	screen := evolver.NewScreen(settings.Default().Evolver, evolver.Forbidden{IDs: []string{"stream-0042", "angina/stream/42"},
		Hidden: []string{"Troponin 0.8 ng/mL (raised)."}, Revealed: []string{"My chest goes tight on the stairs."}}, nil)
	rules := []clinic.Rule{{ID: "r1", Text: "ASK onset: always", Citations: 2}}
	edits := []evolver.Edit{
		{Op: evolver.OpAdd, Text: "REQUEST_TEST ecg WHEN chest tight exertion: it separated angina from reflux"},
		{Op: evolver.OpAdd, Text: "Remember case stream-0042 had angina"},
		{Op: evolver.OpAdd, Text: "If troponin 0.8 ng/mL (raised) appears, refer"},
		{Op: evolver.OpMerge, ID: "r1", Text: "ASK onset and triggers: always"},
	}
	out, log, skipped := evolver.ApplyEdits(rules, edits, 7, settings.Default().Evolver, screen)
	require.Len(t, skipped, 2)
	require.Contains(t, skipped[0], `identifier "stream-0042"`)
	require.Contains(t, skipped[1], "near-duplicate")
	require.Len(t, out, 2)
	require.Equal(t, "ASK onset and triggers: always", out[0].Text)
	require.Equal(t, 3, out[0].Citations)
	require.Len(t, log, 2)

	cards := []clinic.Card{
		{CardHint: clinic.CardHint{ID: "a", Text: "IF chest tight THEN consider angina"}},
		{CardHint: clinic.CardHint{ID: "b", Text: "IF chest tight THEN see Stream 0042"}},
		{CardHint: clinic.CardHint{ID: "c", Text: "IF chest tight", Evidence: []string{"Troponin 0.8 ng/mL (raised)"}}},
	}
	kept, rejected := evolver.ScreenCards(cards, screen)
	require.Len(t, kept, 1)
	require.Equal(t, "a", kept[0].ID)
	require.Len(t, rejected, 2)
}

// leakCase is one episode of a stable angina case as the screen sees it.
func leakCase(truth bool) (evolver.Forbidden, *grader.Key) {
	f := evolver.Forbidden{
		IDs: []string{"stream-0042", "stable_angina/stream/42", "42"},
		Hidden: []string{
			"Total cholesterol 6.6 mmol/L, LDL 4.2 mmol/L (raised).",
			"It comes on with exertion, like hills or stairs, and in cold wind.",
			"BP 150/88 mmHg, HR 74, RR 14, SpO2 98%, temperature 36.7 C.",
			"Hyperdense blood in the basal cisterns consistent with subarachnoid haemorrhage.",
			"My father had a heart attack at sixty.",
			"HbA1c 8.4% (68 mmol/mol).",
			"TSH 28 mIU/L (raised), free T4 6 pmol/L (low).",
		},
		Revealed: []string{"58-year-old man", "My chest goes tight when I walk up a hill.", "It is a pressing tightness in the middle of the chest.",
			"Sinus rhythm at 72/min, normal axis, no acute ST or T wave change.",
			"Haemoglobin 13.9 g/dL, white cells 6.1 x10^9/L, platelets 250 x10^9/L; all within the reference range."},
	}
	if !truth {
		return f, nil
	}
	return f, &grader.Key{Diagnosis: "Stable angina",
		Evidence:   []string{"chest tightness brought on by exertion", "smoking and hypertension as risk factors", "troponin not raised"},
		Management: []string{"sublingual glyceryl trinitrate for attacks", "aspirin and statin for secondary prevention", "review in 48 hours"}}
}

// TestLeakScreenAttacks: what a rule or card may and may not carry. The prefix,
// reordering and number attacks all passed the earlier screen, which rejected
// only verbatim copies of hidden texts of 12 characters or more.
func TestLeakScreenAttacks(t *testing.T) {
	f, truth := leakCase(true)
	screen := evolver.NewScreen(settings.Default().Evolver, f, truth)
	opening := "IF My chest goes tight when I walk up a hill. THEN consider Stable angina; ask about triggers, character; tests: ecg"
	tests := []struct {
		name     string
		evidence []string
		plan     []string
		leak     string // "" when the card may be stored
	}{
		{name: "write-back: diagnosis and key points", evidence: truth.Evidence, plan: truth.Management},
		{name: "revealed values", evidence: []string{"haemoglobin 13.9 g/dL", "sinus rhythm at 72/min", "tightness in the middle of the chest"}},
		{name: "general advice", plan: []string{"check lipids and blood pressure at the next visit", "ask about family history of heart disease"}},
		{name: "test names with digits", plan: []string{"check HbA1c and free T4 in 3 months", "repeat in 2 weeks"}},
		{name: "a number that is also a short ID", plan: []string{"review in 42 days"}},
		{name: "verbatim hidden result", evidence: []string{"Total cholesterol 6.6 mmol/L, LDL 4.2 mmol/L (raised)."}, leak: "near-duplicate"},
		{name: "two-thirds prefix of a hidden result", evidence: []string{"Hyperdense blood in the basal cisterns cons"}, leak: "near-duplicate"},
		{name: "two-thirds prefix of a hidden fact", evidence: []string{"It comes on with exertion, like hills o"}, leak: "near-duplicate"},
		{name: "reordered hidden result", evidence: []string{"haemorrhage subarachnoid with consistent cisterns basal the in blood Hyperdense"}, leak: "near-duplicate"},
		{name: "reordered hidden fact", evidence: []string{"wind cold in and stairs or hills like exertion with on comes it"}, leak: "near-duplicate"},
		{name: "paraphrased hidden fact", evidence: []string{"father heart attack sixty"}, leak: "near-duplicate"},
		{name: "hidden value with unit inside other words", evidence: []string{"expect a reading near 150/88 mmHg in men like this"}, leak: "hidden value 150/88 mmhg"},
		{name: "hidden value glued to its unit", plan: []string{"aim below cholesterol6.6mmol/L"}, leak: "hidden value 6.6 mmol/l"},
		{name: "hidden value by label", evidence: []string{"resting hr 74 at rest"}, leak: "hidden value 74 /min"},
		{name: "hidden temperature", evidence: []string{"afebrile at 36.7 °C"}, leak: "hidden value 36.7 c"},
		{name: "case ID", plan: []string{"as in stream-0042"}, leak: `identifier "stream-0042"`},
		{name: "case ID respelled", plan: []string{"as in Stream_0042"}, leak: `identifier "stream-0042"`},
		{name: "source case ID", plan: []string{"see stable angina stream 42"}, leak: `identifier "stable_angina/stream/42"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			card := clinic.Card{CardHint: clinic.CardHint{ID: "x", Kind: clinic.CardSuccess, Text: opening, Diagnosis: truth.Diagnosis,
				Context: "My chest goes tight when I walk up a hill.", Evidence: tc.evidence, Plan: tc.plan}}
			kept, skipped := evolver.ScreenCards([]clinic.Card{card}, screen)
			if tc.leak == "" {
				require.Len(t, kept, 1, "rejected: %v", skipped)
				return
			}
			require.Empty(t, kept)
			require.Len(t, skipped, 1)
			require.Contains(t, skipped[0], tc.leak)
		})
	}
}

// TestLeakScreenWriteBackValues: an evidence key point may not quote a hidden
// value (imported corpora write key points like "Heart Rate: 120/min"); a
// management key point may hold a dose or a threshold; a revealed value may be
// quoted anywhere.
func TestLeakScreenWriteBackValues(t *testing.T) {
	f := evolver.Forbidden{
		Hidden:   []string{"Heart Rate: 120/min; Blood Pressure: 90/60 mmHg", "5 mm calculus in the left distal ureter.", "WBC: 81,000 /mm3 (elevated)"},
		Revealed: []string{"Temperature: 38.9 C"},
	}
	truth := &grader.Key{Diagnosis: "Sepsis",
		Evidence:   []string{"Heart Rate: 120/min", "Temperature: 38.9 C", "WBC: 81,000/mm3"},
		Management: []string{"urology referral if stone over 5 mm"}}
	screen := evolver.NewScreen(settings.Default().Evolver, f, truth)
	tests := []struct {
		evidence []string
		leak     string
	}{
		{evidence: []string{"Temperature: 38.9 C"}},
		{evidence: []string{"urology referral if stone over 5 mm"}},
		{evidence: []string{"Heart Rate: 120/min"}, leak: "hidden value 120 /min"},
		{evidence: []string{"WBC: 81,000/mm3"}, leak: "hidden value 81000 /mm3"},
		{evidence: []string{"a stone of 5 mm"}},
	}
	for _, tc := range tests {
		t.Run(tc.evidence[0], func(t *testing.T) {
			kept, skipped := evolver.ScreenCards([]clinic.Card{{CardHint: clinic.CardHint{ID: "x", Diagnosis: "Sepsis", Evidence: tc.evidence}}}, screen)
			if tc.leak == "" {
				require.Len(t, kept, 1, "%v", skipped)
				return
			}
			require.Empty(t, kept)
			require.Contains(t, skipped[0], tc.leak)
		})
	}
}

// TestLeakScreenSettings: the write-back is allowed only in write-back mode,
// and the n-gram size and overlap are live settings.
func TestLeakScreenSettings(t *testing.T) {
	f, truth := leakCase(true)
	withHidden := func(h string) evolver.Forbidden {
		g := f
		g.Hidden = append(append([]string(nil), f.Hidden...), h)
		return g
	}
	// A hidden fact that a key point paraphrases: allowed as the write-back, not without it.
	g := withHidden("I use sublingual glyceryl trinitrate for my attacks.")
	card := clinic.Card{CardHint: clinic.CardHint{ID: "x", Plan: []string{"sublingual glyceryl trinitrate for attacks"}}}
	kept, _ := evolver.ScreenCards([]clinic.Card{card}, evolver.NewScreen(settings.Default().Evolver, g, truth))
	require.Len(t, kept, 1, "write-back mode: the management key point may be carried")
	kept, _ = evolver.ScreenCards([]clinic.Card{card}, evolver.NewScreen(settings.Default().Evolver, g, nil))
	require.Empty(t, kept, "score-only mode: the same words near-duplicate a hidden fact")

	prefix := clinic.Card{CardHint: clinic.CardHint{ID: "p", Evidence: []string{"Hyperdense blood in the basal cisterns cons"}}}
	cfg := settings.Default().Evolver
	cfg.LeakOverlap = 1
	kept, _ = evolver.ScreenCards([]clinic.Card{prefix}, evolver.NewScreen(cfg, f, truth))
	require.Len(t, kept, 1, "overlap 1: only a full near-duplicate counts")
	cfg = settings.Default().Evolver
	cfg.LeakNGram = 8
	kept, _ = evolver.ScreenCards([]clinic.Card{prefix}, evolver.NewScreen(cfg, f, truth))
	require.Len(t, kept, 1, "8-grams: the hidden result, shorter than 8 tokens, is one n-gram, and the prefix does not hold all of it")

	require.ErrorContains(t, (func() error { c := settings.Default(); c.Evolver.LeakNGram = 0; return c.Validate() })(), "leak_ngram")
	require.ErrorContains(t, (func() error { c := settings.Default(); c.Evolver.LeakOverlap = 1.5; return c.Validate() })(), "leak_overlap")
}

func TestRuleBudgetRetiresLeastCited(t *testing.T) {
	var edits []evolver.Edit
	for _, test := range []string{"ecg", "troponin", "urinalysis", "ecg", "spirometry"} {
		edits = append(edits, evolver.Edit{Op: evolver.OpAdd, Text: "REQUEST_TEST " + test + " WHEN chest pain: useful"})
	}
	cfg := settings.Default().Evolver
	cfg.RuleBudget = 3
	rules, log, _ := evolver.ApplyEdits(nil, edits, 1, cfg, nil)
	require.Len(t, rules, 3, "never over B_P")
	require.Equal(t, []string{"add r1-request-ecg", "add r1-request-troponin", "add r1-request-urinalysis", "merge r1-request-ecg",
		"add r1-request-spirometry; retire r1-request-troponin"}, log, "a repeated rule merges; over budget the least cited, oldest rule retires")
	require.Equal(t, 2, rules[0].Citations)
}

func TestEvictionsKeepReusedCards(t *testing.T) {
	cfg := settings.Default().Evolver
	live := []clinic.Card{
		{CardHint: clinic.CardHint{ID: "old-used"}, CreatedEpisode: 1, Retrievals: 5},
		{CardHint: clinic.CardHint{ID: "old-unused"}, CreatedEpisode: 2},
		{CardHint: clinic.CardHint{ID: "new-unused"}, CreatedEpisode: 9},
	}
	require.Equal(t, []string{"old-unused"}, evolver.Evictions(live, 1, 3, 10, cfg))
	require.Empty(t, evolver.Evictions(live, 0, 3, 10, cfg))
	require.Equal(t, []string{"old-unused", "new-unused"}, evolver.Evictions(live, 1, 2, 10, cfg))
}

// TestFullBookRetiresTheRuleLeastCitedRecently checks EvoClinician's
// retirement (§3: the lowest-utility rule by how often the grader cited it in
// recent episodes): at episode 20 with W = 5, a rule cited three times long
// ago retires before one cited once in the window.
func TestFullBookRetiresTheRuleLeastCitedRecently(t *testing.T) {
	cfg := settings.Default().Evolver
	cfg.RuleBudget, cfg.CiteWindow = 2, 5
	book := []clinic.Rule{
		{ID: "old", Text: "REQUEST_TEST ecg WHEN chest pain: useful", Citations: 3, Created: 1, CitedAt: []int{2, 3, 4}},
		{ID: "recent", Text: "REQUEST_TEST troponin WHEN chest pain: useful", Citations: 1, Created: 10, CitedAt: []int{18}},
	}
	out, log, _ := evolver.ApplyEdits(book, []evolver.Edit{{Op: evolver.OpAdd, Text: "ASK triggers WHEN chest pain: useful"}}, 20, cfg, nil)
	require.Equal(t, []string{"add r20-ask-triggers; retire old"}, log)
	require.Equal(t, []string{"recent", "r20-ask-triggers"}, []string{out[0].ID, out[1].ID})
	// With a window wide enough to see the old citations, the recent rule retires instead.
	cfg.CiteWindow = 50
	_, log, _ = evolver.ApplyEdits(book, []evolver.Edit{{Op: evolver.OpAdd, Text: "ASK triggers WHEN chest pain: useful"}}, 20, cfg, nil)
	require.Equal(t, []string{"add r20-ask-triggers; retire recent"}, log)
}

// graded is a small score-only episode: a question that told something the
// assessment used, one that told nothing, an expensive test that came back
// not available, and a submission graded CRITICAL_ERROR.
func graded() evolver.Input {
	events := []clinic.Event{
		{Turn: 0, Action: clinic.Ask, Question: "What makes it worse?", Topic: clinic.TopicTriggers, Status: clinic.StatusReturned, Reply: "Climbing stairs.", RevealedFacts: []string{"f1"}},
		{Turn: 1, Action: clinic.Ask, Question: "Does anything run in your family?", Topic: clinic.TopicFamily, Status: clinic.StatusReturned, Reply: "I don't know."},
		{Turn: 2, Action: clinic.RequestTest, Test: "ct head", Status: clinic.StatusUnavailable, Reply: "NOT AVAILABLE", Cost: 505},
		{Turn: 3, Action: clinic.Finalize, Status: clinic.StatusFinalized, Final: &clinic.FinalOutput{Diagnosis: []string{"migraine"}}},
	}
	g := grader.ProcessGrade{Actions: []grader.ActionGrade{
		{Turn: 0, Action: clinic.Ask, Label: grader.HighYield, Rationale: "told the trigger"},
		{Turn: 1, Action: clinic.Ask, Label: grader.Inefficient, Rationale: "revealed nothing new"},
		{Turn: 2, Action: clinic.RequestTest, Label: grader.Inefficient, Rationale: "not available"},
		{Turn: 3, Action: clinic.Finalize, Label: grader.CriticalError, Rationale: "scored 0"},
	}}
	return evolver.Input{Run: "r", Pass: 1, Stage: 1, Episode: 9, CaseID: "c9", Opening: "Tight chest when I walk uphill",
		Events: events, Final: clinic.FinalOutput{Diagnosis: []string{"migraine"}}, Outcome: grader.Outcome{S: 0, Cost: 520}, Grade: g, WriteCards: true}
}

// TestEvolverAsEvoClinicianDefinesIt checks the rules and memory entries of a
// score-only episode (EvoClinician §3): a rule generalising the HIGH_YIELD
// question, guard rules for the INEFFICIENT question and test, and memory
// entries (φ(h_t), a_t, outcome, g_t) for the turns whose labels the run keeps.
func TestEvolverAsEvoClinicianDefinesIt(t *testing.T) {
	cfg := settings.Default().Evolver
	cfg.Mode, cfg.CardKinds = settings.ScoreOnly, []string{"advice"}
	out := evolver.Evolve(cfg, graded(), nil, nil, nil)
	var heads []string
	for _, r := range out.Rules {
		d, ok := clinic.ParseRule(r.Text)
		require.True(t, ok, r.Text)
		heads = append(heads, d.Verb+" "+d.Target)
	}
	require.Equal(t, []string{"ASK triggers", "AVOID_ASK family", "AVOID_TEST ct head"}, heads)
	byAction := map[string]clinic.Card{}
	for _, c := range out.Cards {
		require.Equal(t, clinic.CardAdvice, c.Kind)
		byAction[c.Action] = c
	}
	require.Len(t, byAction, 4, "HIGH_YIELD, two INEFFICIENT and CRITICAL_ERROR turns: one entry each")
	// φ(h_t) is the history before the turn: the opening only for turn 0,
	// the opening and what the patient said for the test at turn 2.
	require.Equal(t, "tight chest walk uphill", byAction["ASK:triggers"].Context)
	require.Contains(t, byAction["REQUEST_TEST:ct head"].Context, "climbing stairs")
	require.Equal(t, []string{clinic.TopicTriggers}, byAction["ASK:triggers"].Ask)
	require.Equal(t, "migraine", byAction["FINALIZE:migraine"].Avoid, "a critical submission is a diagnosis to avoid")
	require.Equal(t, string(grader.CriticalError), byAction["FINALIZE:migraine"].Grade)

	// The entries need no model: Records gives them for a model evolver to keep.
	require.Equal(t, out.Cards, evolver.KeepKinds(evolver.Records(cfg, graded()), cfg.CardKinds))

	// The ablations: no CRITICAL_ERROR memories; no other negative memories.
	cfg.MemoryLabels = []string{"HIGH_YIELD", "INEFFICIENT"}
	require.Len(t, evolver.Evolve(cfg, graded(), nil, nil, nil).Cards, 3)
	cfg.MemoryLabels = []string{"HIGH_YIELD", "CRITICAL_ERROR"}
	require.Len(t, evolver.Evolve(cfg, graded(), nil, nil, nil).Cards, 2)
	// Transcript-level feedback: no per-action rules or entries.
	cfg.TranscriptOnly = true
	out = evolver.Evolve(cfg, graded(), nil, nil, nil)
	require.Empty(t, out.Rules)
	require.Empty(t, out.Cards)
	// The summary baselines keep one compressed transcript per episode.
	cfg = settings.Default().Evolver
	cfg.CardKinds = []string{"summary"}
	out = evolver.Evolve(cfg, graded(), nil, nil, nil)
	require.Len(t, out.Cards, 1)
	require.Contains(t, out.Cards[0].Text, "asked triggers: Climbing stairs.")
}

// TestDistinctMergesCopies checks that a book never holds a rule twice: a
// copy with other spacing and case, and a directive about an overlapping
// context, merge into the first with their citations; a different rule stays.
func TestDistinctMergesCopies(t *testing.T) {
	book := []clinic.Rule{
		{ID: "a", Text: "Ask about onset and triggers first.", Citations: 2, CitedAt: []int{1, 3}},
		{ID: "b", Text: "REQUEST_TEST ecg WHEN chest pain: useful", Citations: 1, CitedAt: []int{2}},
		{ID: "c", Text: "ask about  onset and triggers FIRST.", Citations: 1, CitedAt: []int{3}},
		{ID: "d", Text: "REQUEST_TEST ecg WHEN chest pain uphill: useful", Citations: 4, CitedAt: []int{4}},
		{ID: "e", Text: "Check the blood pressure in both arms.", Citations: 1},
	}
	out, log := evolver.Distinct(book, settings.Default().Evolver.SameAt)
	require.Equal(t, []string{"merge c into a", "merge d into b"}, log)
	require.Len(t, out, 3)
	require.Equal(t, clinic.Rule{ID: "a", Text: book[0].Text, Citations: 3, CitedAt: []int{1, 3}}, out[0], "2 + 1 citations; episode 3 once")
	require.Equal(t, 5, out[1].Citations, "1 + 4")
	require.Equal(t, []int{2, 4}, out[1].CitedAt)
	require.Equal(t, "e", out[2].ID)
	require.Len(t, book, 5, "the input is not changed")
}

// TestAddingARuleTheBookHoldsCitesIt checks the free-text add of a model
// evolver: the same rule proposed after each of 20 episodes stays one rule,
// cited at each, and a full book retires nothing for it.
func TestAddingARuleTheBookHoldsCitesIt(t *testing.T) {
	cfg := settings.Default().Evolver
	cfg.RuleBudget = 2
	book := []clinic.Rule{{ID: "keep", Text: "Check the blood pressure in both arms.", Citations: 1, Created: 0, CitedAt: []int{0}}}
	for n := 1; n <= 20; n++ {
		var log []string
		book, log, _ = evolver.ApplyEdits(book, []evolver.Edit{{Op: evolver.OpAdd, Text: "Ask about onset and triggers first."}}, n, cfg, nil)
		if n == 1 {
			require.Equal(t, []string{"add r1-2"}, log)
		} else {
			require.Equal(t, []string{"merge r1-2"}, log, "episode %d", n)
		}
	}
	require.Len(t, book, 2)
	require.Equal(t, "keep", book[0].ID, "no retirement for a copy")
	require.Equal(t, 20, book[1].Citations)
}
