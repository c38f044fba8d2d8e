package runner_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/clinevo/clinevo/actor"
	"github.com/clinevo/clinevo/actor/textbook"
	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/bench/benchtest"
	"github.com/clinevo/clinevo/benchmarks/medinquire"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus/synth"
	"github.com/clinevo/clinevo/fault"
	"github.com/clinevo/clinevo/internal/benchsize"
	"github.com/clinevo/clinevo/runner"
	"github.com/clinevo/clinevo/settings"
)

// textbookDeps are the built-in roles with the textbook doctor under s, a
// run of Med-Inquire (evoClinician) or MedEvoEval (the default).
func textbookDeps(t testing.TB, s settings.Settings, withMemory bool) runner.Deps {
	d := deps(t, withMemory)
	if s.Benchmark == medinquire.Name {
		d.Bench = medinquire.Benchmark{}
	}
	s.Roles = settings.Roles{"doctor": {Backend: settings.Builtin, Model: textbook.Name}}
	d.Settings = s
	return d
}

// ownDoctor is a benchmark with its own built-in doctor (actor.Policy).
type ownDoctor struct{ benchtest.Fake }

func (ownDoctor) BuiltinDoctor() actor.Doctor { return actor.Builtin{} }

// evoClinician is the EvoClinician experiment's settings
// (benchmarks/medinquire/evoclinician.yaml, condition evoclinician): Med-Inquire,
// score-only feedback, memory entries, B_P 12.
func evoClinician() settings.Settings {
	s := settings.Default()
	s.Benchmark = medinquire.Name
	s.Episode.MDT = settings.MDTOff
	s.Evolver.Mode = settings.ScoreOnly
	s.Evolver.CardKinds = []string{"advice"}
	return s
}

// playStream plays cases in order, learning after each when learn, and
// returns every episode's S and the deps (their memory and rules).
func playStream(t testing.TB, d runner.Deps, cases []clinic.Case, run string, learn bool) ([]float64, []clinic.Rule) {
	ctx := context.Background()
	var rules []clinic.Rule
	var s []float64
	for i, c := range cases {
		m := runner.Meta{RunID: run, EpisodeID: fmt.Sprintf("%s/e%d", run, i+1), Number: i + 1, Pass: 1, Stage: c.Meta.Stage,
			Rules: runner.RuleTexts(rules), MemoryRuns: []string{run}}
		tr, err := runner.Play(ctx, c, d, m)
		if err != nil {
			t.Fatal(err)
		}
		s = append(s, tr.Scores.S)
		if !learn {
			continue
		}
		l, err := runner.Learn(ctx, d, c, tr, m, rules)
		if err != nil {
			t.Fatal(err)
		}
		rules = l.Rules
	}
	return s, rules
}

// frozen plays held-out cases with a finished run's memory and rules frozen.
func frozen(t testing.TB, d runner.Deps, cases []clinic.Case, run string, rules []clinic.Rule, after int) []float64 {
	var out []float64
	for i, c := range cases {
		m := runner.Meta{RunID: run + "-held", EpisodeID: fmt.Sprintf("%s-held/e%d", run, i+1), Number: after + 1, AsOf: after, Frozen: true,
			MemoryRuns: []string{run}, Rules: runner.RuleTexts(rules)}
		tr, err := runner.Play(context.Background(), c, d, m)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tr.Scores.S)
	}
	return out
}

func stageMeans(s []float64, size int) string {
	var parts []string
	for i := 0; i < len(s); i += size {
		parts = append(parts, fmt.Sprintf("%.3f", analysis.Mean(s[i:min(i+size, len(s))])))
	}
	return strings.Join(parts, " ")
}

// diff is the per-case b − a with its mean and bootstrap 95% interval.
func diff(a, b []float64) string {
	d := make([]float64, len(a))
	for i := range a {
		d[i] = b[i] - a[i]
	}
	ci := analysis.BootstrapMean(d, 2000, analysis.Seed)
	return fmt.Sprintf("%+.3f [%+.3f, %+.3f] (n %d)", analysis.Mean(d), ci.Low, ci.High, len(d))
}

// BenchmarkTextbookLearns measures what the textbook doctor learns, in
// process on corpus v3 (seed 7), with the figures issue 24 asks for:
//
//   - EvoClinician (score-only feedback, memory entries): S per stage of 50
//     over the 500-case stream, memory from empty against memory disabled,
//     and the late-minus-early gain (stages 8–10 against 1–3) per case;
//   - MedEvoEval: E1 (memory from empty, write-back) against E0 (memory
//     disabled) on the stream, paired by case;
//   - H3 (E1's memory frozen) against H0 on the held-out split, on the cases
//     whose condition the stream shows and on those it never shows.
//
// go test ./runner -run '^$' -bench TextbookLearns -benchtime 1x -v
//
// At benchsize.Small it plays the first 50 stream cases in stages of 5 and
// 20 held-out cases.
func BenchmarkTextbookLearns(b *testing.B) {
	splits, err := synth.GenerateVersion(synth.V3, 7)
	if err != nil {
		b.Fatal(err)
	}
	stream, held := splits["stream"], splits["heldout"]
	if benchsize.Small() {
		stream, held = stream[:50], held[:20]
	}
	stage := len(stream) / 10 // 50 on the full stream
	early, late := 3*stage, len(stream)-3*stage
	unseen := map[string]bool{}
	for _, k := range synth.UnseenV3(7) {
		unseen[k] = true
	}
	for b.Loop() {
		// EvoClinician, score-only.
		s0, _ := playStream(b, textbookDeps(b, evoClinician(), false), stream, "evo-static", false)
		s1, _ := playStream(b, textbookDeps(b, evoClinician(), true), stream, "evo", true)
		b.Logf("EvoClinician score-only, S per stage: memory disabled %s", stageMeans(s0, stage))
		b.Logf("EvoClinician score-only, S per stage: memory from empty %s", stageMeans(s1, stage))
		b.Logf("EvoClinician learning gain (late stages 8-10 minus early 1-3, per position): %s", diff(s1[:early], s1[late:]))
		b.Logf("EvoClinician memory vs none, stages 1-3 paired by case: %s", diff(s0[:early], s1[:early]))
		b.Logf("EvoClinician memory vs none, stages 8-10 paired by case: %s", diff(s0[late:], s1[late:]))
		b.ReportMetric(analysis.Mean(s1[late:])-analysis.Mean(s1[:early]), "evo-gain")

		// MedEvoEval E0 / E1 with write-back, then H0 / H3.
		me := settings.Default()
		e0d, e1d := textbookDeps(b, me, false), textbookDeps(b, me, true)
		e0, _ := playStream(b, e0d, stream, "E0", false)
		e1, rules := playStream(b, e1d, stream, "E1", true)
		b.Logf("MedEvoEval S per stage: E0 %s", stageMeans(e0, stage))
		b.Logf("MedEvoEval S per stage: E1 %s", stageMeans(e1, stage))
		b.Logf("MedEvoEval E1 - E0 paired by case (%d): %s", len(e0), diff(e0, e1))
		b.ReportMetric(analysis.Mean(e1)-analysis.Mean(e0), "E1-E0")
		h0 := frozen(b, e0d, held, "E0", nil, 0)
		h3 := frozen(b, e1d, held, "E1", rules, len(stream))
		var h0s, h3s, h0u, h3u []float64
		for i, c := range held {
			if unseen[c.Condition] {
				h0u, h3u = append(h0u, h0[i]), append(h3u, h3[i])
			} else {
				h0s, h3s = append(h0s, h0[i]), append(h3s, h3[i])
			}
		}
		b.Logf("held-out H0 %.3f H3 %.3f; H3 - H0 all: %s", analysis.Mean(h0), analysis.Mean(h3), diff(h0, h3))
		b.Logf("H3 - H0 on seen conditions: %s (H0 %.3f, H3 %.3f)", diff(h0s, h3s), analysis.Mean(h0s), analysis.Mean(h3s))
		b.Logf("H3 - H0 on unseen conditions: %s (H0 %.3f, H3 %.3f)", diff(h0u, h3u), analysis.Mean(h0u), analysis.Mean(h3u))
	}
}

// TestTextbookDoctorIsASetting: roles.doctor.model textbook chooses it; the
// default stays the case-based doctor; a benchmark with its own built-in
// doctor refuses it; any other model with the builtin backend is the
// case-based doctor ("casebased" by name).
func TestTextbookDoctorIsASetting(t *testing.T) {
	d := textbookDeps(t, settings.Default(), false)
	d.Roles.Doctor = nil
	doc, err := d.Doctor()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := doc.(textbook.Doctor); !ok {
		t.Fatalf("doctor %T, want textbook.Doctor", doc)
	}
	d.Settings.Roles = nil
	if doc, _ := d.Doctor(); fmt.Sprintf("%T", doc) != "actor.Builtin" {
		t.Fatalf("default doctor %T, want actor.Builtin", doc)
	}
	d = textbookDeps(t, settings.Default(), false)
	d.Bench = ownDoctor{benchtest.Fake{N: "own"}}
	d.Roles.Doctor = nil
	_, err = d.Doctor()
	if err == nil || !strings.Contains(err.Error(), "has its own built-in doctor") {
		t.Fatalf("err %v", err)
	}
	// Permanent, so the episode's workflow fails at once instead of
	// waiting out an outage that is not one.
	if f := fault.Of(err); f.Class.Transient() {
		t.Fatalf("class %s, want a permanent one", f.Class)
	}
	d = textbookDeps(t, settings.Default(), false)
	d.Roles.Doctor = nil
	d.Settings.Roles["doctor"] = settings.Role{Backend: settings.Builtin, Model: "casebased"}
	if doc, _ := d.Doctor(); fmt.Sprintf("%T", doc) != "actor.Builtin" {
		t.Fatalf("casebased doctor %T, want actor.Builtin", doc)
	}
}
