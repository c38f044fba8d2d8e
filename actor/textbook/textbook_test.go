package textbook_test

import (
	"context"
	"go/build"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/actor/textbook"
	"github.com/clinevo/clinevo/catalog"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus/synth"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/textmatch"
)

const module = "github.com/clinevo/clinevo"

// TestNothingOfTheGeneratorReachesIt walks the import graph of the
// package's non-test files: no corpus package (the generator's condition
// table lives in corpus/synth), no benchmark, no results store. What the
// doctor knows is its embedded index and its view.
func TestNothingOfTheGeneratorReachesIt(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	seen := map[string]bool{}
	var walk func(pkg string)
	walk = func(pkg string) {
		if seen[pkg] || !strings.HasPrefix(pkg, module) {
			return
		}
		seen[pkg] = true
		p, err := build.ImportDir(filepath.Join(root, strings.TrimPrefix(pkg, module)), 0)
		require.NoError(t, err, pkg)
		for _, imp := range p.Imports { // non-test files only
			walk(imp)
		}
	}
	walk(module + "/actor/textbook")
	require.Contains(t, seen, module+"/clinic")
	for pkg := range seen {
		for _, banned := range []string{"/corpus", "/bench", "/results", "/memory", "/runner", "/engine"} {
			require.False(t, strings.HasPrefix(pkg, module+banned), "actor/textbook imports %s", pkg)
		}
	}
}

// TestThePriorIsPartialAndItsOwn: the index names every condition of the
// generator's table (so a right answer is possible) but gives a findings
// prior for only about half of them, and none of its findings lines is a
// sentence of the table's cases: the prior was written, not derived.
func TestThePriorIsPartialAndItsOwn(t *testing.T) {
	ix := textbook.Shipped()
	cases := synth.Generate(7)["stream"]
	byCondition := map[string]clinic.Diagnosis{}
	statements := map[string]bool{}
	for _, c := range cases {
		byCondition[c.Condition] = c.Manager.Diagnosis
		for _, f := range c.Patient.Facts {
			statements[textmatch.Normalize(f.Text)] = true
		}
		for _, f := range c.Exam.Findings {
			statements[textmatch.Normalize(f.Text)] = true
		}
	}
	withPrior := 0
	for key, dx := range byCondition {
		var hit *textbook.Entry
		for i, e := range ix.Entries {
			if grader.GradeDiagnosis(e.Name, dx) == 1 {
				hit = &ix.Entries[i]
				break
			}
		}
		require.NotNil(t, hit, "the index names %s (%s)", key, dx.Name)
		if len(hit.Findings) > 0 {
			withPrior++
		}
	}
	n := len(byCondition)
	require.Equal(t, 46, n)
	require.True(t, withPrior > n/3 && withPrior < 2*n/3, "a prior for %d of %d conditions, want about half", withPrior, n)
	require.Greater(t, len(ix.Entries), n+20, "the index holds conditions the corpus never has")
	for _, e := range ix.Entries {
		var words []string
		for w := range e.Findings {
			words = append(words, w)
		}
		require.LessOrEqual(t, len(words), 10, "%s: a few words, not a case description", e.Name)
	}
	raw, err := os.ReadFile("index.txt")
	require.NoError(t, err)
	findings := 0
	for _, line := range strings.Split(string(raw), "\n") {
		parts := strings.Split(line, "|")
		if len(parts) < 2 || strings.HasPrefix(line, "#") {
			continue
		}
		f := textmatch.Normalize(parts[1])
		if f == "" {
			continue
		}
		findings++
		require.False(t, statements[f], "index findings %q are a case statement", f)
		for s := range statements {
			require.False(t, len(s) > 20 && strings.Contains(f, s), "index findings %q quote %q", f, s)
		}
	}
	require.Positive(t, findings)
}

func TestParseErrorsNameTheLine(t *testing.T) {
	_, err := textbook.Parse("Asthma | wheeze\n")
	require.ErrorContains(t, err, "index.txt:1: a condition before any chapter")
	_, err = textbook.Parse("chapter x: a\nA | b | c | d\n")
	require.ErrorContains(t, err, "index.txt:2: want")
	_, err = textbook.Parse("# c\nchapter : a\n")
	require.ErrorContains(t, err, "index.txt:2: want \"chapter <name>: <cue words>\"")
}

// view is a finished history of a patient with exertional chest tightness.
func view(cards ...clinic.CardHint) clinic.DoctorView {
	return clinic.DoctorView{OpeningComplaint: "I get a tight feeling in my chest.", Turn: 9, MaxTurns: 10, MaxTests: 3,
		Exchanges: []clinic.Exchange{{Question: "q", Topic: clinic.TopicTriggers, Answer: "It comes on walking up hills and settles with rest.", Answered: true}},
		Cards:     cards}
}

// TestItDiagnosesFromItsPriorAndFromMemory: with no memory it names the
// entry its prior fits; a remembered successful attempt in a similar context
// (score-only memory entry) or a write-back card moves it; a warning moves it
// off; an unrelated context does not count.
func TestItDiagnosesFromItsPriorAndFromMemory(t *testing.T) {
	d := textbook.New()
	decide := func(v clinic.DoctorView) string {
		dec, err := d.Decide(context.Background(), v)
		require.NoError(t, err)
		require.Equal(t, clinic.Finalize, dec.Output.Action)
		return dec.Output.Diagnosis[0]
	}
	require.Equal(t, "Stable angina", decide(view()))
	ctx := "tight feeling chest comes walking hills settles rest"
	recalled := clinic.CardHint{ID: "c1", Kind: clinic.CardAdvice, Similarity: 0.8, Context: ctx, Grade: string(grader.HighYield), Diagnosis: "Costochondritis"}
	require.Equal(t, "Stable angina", decide(view(recalled)), "a strong textbook fit is trusted over one memory")
	warned := clinic.CardHint{ID: "c2", Kind: clinic.CardAdvice, Similarity: 0.8, Context: ctx, Grade: string(grader.CriticalError), Avoid: "Stable angina"}
	require.NotEqual(t, "Stable angina", decide(view(warned, warned)), "warned off")
	// Without a prior fit (a vague chest complaint), memory decides.
	vague := clinic.DoctorView{OpeningComplaint: "My chest hurts.", Turn: 9, MaxTurns: 10,
		Cards: []clinic.CardHint{{ID: "c3", Kind: clinic.CardAdvice, Similarity: 0.9, Context: "chest hurts", Grade: string(grader.HighYield), Diagnosis: "Costochondritis"}}}
	require.Equal(t, "Costochondritis", decide(vague))
	vague.Cards[0].Context = "itchy rash elbows"
	require.NotEqual(t, "Costochondritis", decide(vague), "an unrelated remembered context does not count")
	key := clinic.CardHint{ID: "k", Kind: clinic.CardSuccess, Similarity: 0.9, Diagnosis: "Costochondritis"}
	vague.Cards = []clinic.CardHint{key}
	require.Equal(t, "Costochondritis", decide(vague), "a write-back card's diagnosis")
}

// TestItTakesAHistoryFirst: early turns ask, then examine, then order the
// index's tests for its leading candidate.
func TestItTakesAHistoryFirst(t *testing.T) {
	d := textbook.New()
	v := clinic.DoctorView{OpeningComplaint: "I get a tight feeling in my chest.", MaxTurns: 10, MaxTests: 3}
	dec, err := d.Decide(context.Background(), v)
	require.NoError(t, err)
	require.Equal(t, clinic.Ask, dec.Output.Action)
	require.Equal(t, clinic.TopicOnset, dec.Output.Topic)
	for _, topic := range []string{clinic.TopicOnset, clinic.TopicCharacter, clinic.TopicLocation, clinic.TopicAssociated, clinic.TopicTriggers, clinic.TopicPastHistory} {
		v.Exchanges = append(v.Exchanges, clinic.Exchange{Topic: topic, Answer: "It comes on walking up hills and settles with rest.", Answered: true})
	}
	v.Turn = 6
	dec, err = d.Decide(context.Background(), v)
	require.NoError(t, err)
	require.Equal(t, clinic.RequestTest, dec.Output.Action)
	require.Equal(t, catalog.PhysicalKey, dec.Output.TestName)
	v.Results = []clinic.Result{{Test: catalog.PhysicalKey, Status: clinic.StatusReturned, Text: "Normal."}}
	v.Turn = 7
	dec, err = d.Decide(context.Background(), v)
	require.NoError(t, err)
	require.Equal(t, clinic.RequestTest, dec.Output.Action)
	require.Equal(t, "ecg", dec.Output.TestName, "the index's test for stable angina")
}
