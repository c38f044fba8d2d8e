package analysis_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/results"
)

// fixture is a small finished experiment: two streams of 2 stages × 4 cases,
// stage evaluations and a replay for E1, and H0/H3 over 4 held-out cases.
func fixture() analysis.Input {
	spec := contract.ExperimentSpec{Name: "t", Corpus: "builtin:stream", StageSize: 4, HeldOut: "builtin:heldout", Conditions: []contract.ConditionSpec{
		{Name: "E0", Kind: "stream", Memory: "disabled"}, {Name: "E1", Kind: "stream", Memory: "empty"},
		{Name: "H0", Kind: "heldout"}, {Name: "H3", Kind: "heldout", From: "E1"}}}
	rec := func(run string, stage, idx int, s float64, strict bool) results.Record {
		id := contract.EpisodeWorkflowID(run, 1, stage, idx, "c"+string(rune('a'+idx)))
		return results.Record{EpisodeID: id, WorkflowID: id, Run: run, Stage: stage, Index: idx, CaseID: "c" + string(rune('a'+idx)),
			Scores: clinic.Scores{S: s, Strict: strict, U: 0.6*s - 0.1, T: 5, E: 1, Cost: 60}}
	}
	in := analysis.Input{Benchmarks: testSet(), Spec: spec, Records: map[string][]results.Record{}}
	for i := 1; i <= 8; i++ {
		stage := (i-1)/4 + 1
		in.Records["t-E0"] = append(in.Records["t-E0"], rec("t-E0", stage, i, 0.1, false))
		in.Records["t-E1"] = append(in.Records["t-E1"], rec("t-E1", stage, i, 0.2*float64(stage)+0.05*float64(i%2), stage == 2))
	}
	for i := 1; i <= 4; i++ {
		in.Records[contract.StageEvalRunID("t-E1", 1)] = append(in.Records[contract.StageEvalRunID("t-E1", 1)], rec("x", 1, i, 0.6, true))
		in.Records[contract.StageEvalRunID("t-E1", 2)] = append(in.Records[contract.StageEvalRunID("t-E1", 2)], rec("x", 2, i+4, 0.7, true))
		in.Records[contract.ReplayRunID("t-E1", 2, 1)] = append(in.Records[contract.ReplayRunID("t-E1", 2, 1)], rec("x", 1, i, 0.5, true))
		in.Records["t-H0"] = append(in.Records["t-H0"], rec("t-H0", 1, i, 0.1, false))
		in.Records["t-H3"] = append(in.Records["t-H3"], rec("t-H3", 1, i, 0.1+0.2*float64(i), i > 1))
	}
	in.Result = contract.ExperimentResult{Name: "t", Conditions: []contract.ConditionResult{
		{Name: "E0", Kind: "stream", Run: "t-E0", Stream: &contract.StreamResult{StageEnds: []int{4, 8}}},
		{Name: "E1", Kind: "stream", Run: "t-E1", Stream: &contract.StreamResult{StageEnds: []int{4, 8}}},
		{Name: "H0", Kind: "heldout", Run: "t-H0"}, {Name: "H3", Kind: "heldout", Run: "t-H3"}}}
	return in
}

func TestBuildLongitudinalMetrics(t *testing.T) {
	rep := analysis.Build(fixture())
	require.Len(t, rep.Conditions, 4)
	e1 := rep.Conditions[1]
	require.Len(t, e1.Stages, 2)
	// E1 stage means: stage 1 = 0.2 + 0.05·(2/4) = 0.225, stage 2 = 0.425; gain (last third vs first third, one stage each) = 0.2.
	require.InDelta(t, 0.225, e1.Stages[0].S, 1e-9)
	require.InDelta(t, 0.425, e1.Stages[1].S, 1e-9)
	require.InDelta(t, 0.2, e1.LearningGain.S, 1e-9)
	// Retention: A[1][1] = 0.6, A[2][2] = 0.7, A[2][1] = 0.5: BWT(S) = 0.5 − 0.6 = −0.1.
	require.Len(t, rep.Retention, 1)
	require.InDelta(t, -0.1, *rep.Retention[0].BWTS, 1e-9)
	require.Nil(t, rep.Retention[0].S[0][1], "A[1][2] does not exist")
	// Transfer: H3 − H0 per case = 0.2, 0.4, 0.6, 0.8: ET(S) = 0.5; strict 3 of 4 gained: ET(strict) = 0.75.
	require.Len(t, rep.Transfer, 1)
	require.InDelta(t, 0.5, rep.Transfer[0].ETS, 1e-9)
	require.InDelta(t, 0.75, rep.Transfer[0].ETStrict, 1e-9)
	require.InDelta(t, 0.125, rep.Transfer[0].Wilcoxon.P, 1e-12, "exact: all 4 positive, p = 2/16")
	require.InDelta(t, 0.25, rep.Transfer[0].McNemar, 1e-12, "b = 3, c = 0: p = 2/8")
	// Paired comparisons, d = B − A with A the baseline (MedEvoEval C.6).
	cmp := map[string]analysis.Comparison{}
	for _, c := range rep.Comparisons {
		cmp[c.A+">"+c.B+":"+c.Metric] = c
	}
	// E1 against E0 over 8 cases: E1's S is 0.25, 0.2, 0.25, 0.2, 0.45, 0.4, 0.45, 0.4 (mean 0.325), E0's 0.1.
	require.Equal(t, 8, cmp["E0>E1:S"].N)
	require.InDelta(t, 0.225, cmp["E0>E1:S"].MeanDiff, 1e-9)
	// Strict: E1 only on its 4 stage-2 cases, E0 never: b = 0, c = 4, exact p = 2·(1/2)^4.
	require.Equal(t, 0, cmp["E0>E1:strict"].McNemar.B)
	require.Equal(t, 4, cmp["E0>E1:strict"].McNemar.C)
	require.InDelta(t, 0.125, cmp["E0>E1:strict"].McNemar.P, 1e-12)
	// Every metric the paper tests, for the held-out pair too; T is 5 everywhere: all differences zero, p = 1.
	for _, m := range []string{"S", "U", "T", "E", "R", "diagnosis", "strict", "pass", "non_dangerous"} {
		require.Contains(t, cmp, "H0>H3:"+m)
	}
	require.InDelta(t, 1, cmp["H0>H3:T"].Wilcoxon.P, 1e-12)
	require.Nil(t, cmp["H0>H3:S"].McNemar, "continuous metrics have no McNemar test")
	// Running means over E1's 8 episodes in case order: the last is the mean, 0.325.
	require.Len(t, e1.Running, 8)
	require.InDelta(t, 0.25, e1.Running[0].S, 1e-9)
	require.InDelta(t, 0.225, e1.Running[1].S, 1e-9)
	require.InDelta(t, 0.325, e1.Running[7].S, 1e-9)
	require.InDelta(t, 60, e1.Running[7].Cost, 1e-9)
	// The stage series of E1 (2 points) is too short for the ADF regression.
	require.Equal(t, analysis.SeriesTooShort, e1.ADF.Status)
	require.Len(t, rep.Sensitivity, 4)
	require.Equal(t, []string{"E1", "E0"}, rep.Sensitivity[0].Ranking)
}

func TestUpdateResponse(t *testing.T) {
	in := fixture()
	in.Spec.UpdateStages = []int{2}
	in.Spec.Conditions[1].Corpus = "builtin:update"
	// E1: stage 1 = 0.225, "update" stage 2 = 0.425 (a rise): no recovery ratio.
	rep := analysis.Build(in)
	require.Len(t, rep.Updates, 1)
	u := rep.Updates[0]
	require.InDelta(t, 0.2, u.DeltaUpd, 1e-9)
	require.Nil(t, u.Recovery, "recovery only where the update produced a drop")
}

// TestReportRendersInChromium writes the report and loads it in headless
// Chromium: no console errors, and every chart is in the DOM. Without Chromium
// it skips, except under CI (env CI set), where a missing browser is a failure.
func TestReportRendersInChromium(t *testing.T) {
	browser, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set and chromium is required for this test (.ci/run installs Debian's chromium): %v", err)
		}
		t.Skipf("chromium not found (install the chromium package, e.g. apt-get install chromium, to run this test): %v", err)
	}
	dir := t.TempDir()
	in := fixture()
	in.Run = results.Run{Run: "t", Kind: "experiment", Created: "2026-12-01T09:00:00Z", Completed: "2026-12-01T09:05:00Z"}
	rep := analysis.Build(in)
	require.NoError(t, analysis.Write(dir, rep, func(id string) (clinic.Trace, error) {
		return clinic.Trace{SchemaVersion: 1, EpisodeID: id, Events: []clinic.Event{{Turn: 0, Action: clinic.Ask, Question: "q", Status: clinic.StatusReturned, Reply: "a"},
			{Turn: 1, Action: clinic.Finalize, Status: clinic.StatusFinalized}}, Scores: &clinic.Scores{S: 0.8}}, nil
	}))
	for _, f := range analysis.Files {
		_, err := os.Stat(filepath.Join(dir, f))
		require.NoError(t, err, f)
	}
	page := "file://" + filepath.Join(dir, "index.html")
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0", "--user-data-dir=" + t.TempDir()}
	out, err := exec.Command(browser, append(args, "--dump-dom", page)...).Output()
	require.NoError(t, err)
	dom := string(out)
	for _, chart := range []string{`class="chart curve"`, `class="chart heatmap"`, `class="chart deltas"`, `class="chart costs"`, `class="band"`, `class="chart running"`} {
		require.Contains(t, dom, chart)
	}
	require.Contains(t, dom, `href="episodes/`)
	// Every chart has a title; the running means have x ticks; the heat map
	// its legend; the series are Okabe–Ito's.
	require.Equal(t, strings.Count(dom, `<svg class="chart`), strings.Count(dom, `<text class="title"`))
	require.Regexp(t, `class="chart running"[^€]*?class="xtick"`, dom)
	require.Contains(t, dom, `<g class="legend">`)
	require.Contains(t, dom, analysis.Palette[0])
	require.NotContains(t, dom, "#1f77b4", "the old palette is gone")
	// p-values: three decimals or "< 0.001", never "0.000".
	for _, m := range regexp.MustCompile(`Wilcoxon p (= [0-9.]+|< 0\.001)`).FindAllStringSubmatch(dom, -1) {
		require.NotEqual(t, "= 0.000", m[1])
	}
	// Provenance and the glossary on the page, from the report's input.
	for _, want := range []string{"Provenance", "2026-12-01T09:00:00Z", "2026-12-01T09:05:00Z", "builtin:v2:stream@7", "bootstrap seed", "doctor: builtin",
		`id="glossary"`, `data-term="s"`, `data-term="u"`, `data-term="t"`, `data-term="e"`, `data-term="r"`} {
		require.Contains(t, dom, want)
	}
	shot := filepath.Join(dir, "shot.png")
	if d := os.Getenv("CLINEVO_VIEW_SCREENSHOTS"); d != "" {
		shot = filepath.Join(d, "report.png")
	}
	cmd := exec.Command(browser, append(args, "--window-size=1100,2000", "--screenshot="+shot, page)...)
	logs, err := cmd.CombinedOutput()
	require.NoError(t, err, string(logs))
	for _, line := range strings.Split(string(logs), "\n") {
		if strings.Contains(line, "CONSOLE") || strings.Contains(line, "Uncaught") {
			t.Errorf("console message: %s", line)
		}
	}
	info, err := os.Stat(shot)
	require.NoError(t, err)
	require.Greater(t, info.Size(), int64(10000), "a screenshot with content")
}

// TestPairedWithIsComparedByCase checks that a condition paired with another
// (a static full-vignette run and its interactive episodes) is compared case
// by case, the named condition as the baseline.
func TestPairedWithIsComparedByCase(t *testing.T) {
	in := fixture()
	in.Spec.Conditions = append(in.Spec.Conditions, contract.ConditionSpec{Name: "X", Kind: contract.KindHeldOut, PairedWith: "H0"})
	in.Result.Conditions = append(in.Result.Conditions, contract.ConditionResult{Name: "X", Kind: contract.KindHeldOut, Run: "t-X"})
	for _, r := range in.Records["t-H0"] {
		r.Run, r.Scores.S = "t-X", r.Scores.S+0.3
		in.Records["t-X"] = append(in.Records["t-X"], r)
	}
	rep := analysis.Build(in)
	found := false
	for _, c := range rep.Comparisons {
		if c.A == "H0" && c.B == "X" && c.Metric == "S" {
			found = true
			require.Equal(t, 4, c.N)
			require.InDelta(t, 0.3, c.MeanDiff, 1e-9)
		}
	}
	require.True(t, found, "X is compared with H0")
}

// TestReportJSONProvenance checks report.json's provenance and glossary
// members, and that the members it had before them are all still there.
func TestReportJSONProvenance(t *testing.T) {
	in := fixture()
	in.Run = results.Run{Run: "t", Kind: "experiment", Created: "2026-12-01T09:00:00Z", Completed: "2026-12-01T09:05:00Z"}
	b, err := json.Marshal(analysis.Build(in))
	require.NoError(t, err)
	var top map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(b, &top))
	for _, k := range []string{"experiment", "conditions", "retention", "transfer", "comparisons", "sensitivity", "provenance", "glossary"} {
		require.Contains(t, top, k)
	}
	var p analysis.Provenance
	require.NoError(t, json.Unmarshal(top["provenance"], &p))
	require.Equal(t, "2026-12-01T09:00:00Z", p.Started)
	require.Equal(t, "2026-12-01T09:05:00Z", p.Finished)
	require.Equal(t, []string{"builtin:v2:stream@7", "builtin:v2:heldout@7"}, p.Corpora)
	require.Equal(t, analysis.Seed, p.BootstrapSeed)
	require.NotEmpty(t, p.Version)
	require.Len(t, p.Conditions, 4)
	for _, c := range p.Conditions {
		require.Regexp(t, `^sha256:[0-9a-f]{64}$`, c.SettingsDigest, c.Name)
		require.Contains(t, c.Models, "doctor: builtin", c.Name)
	}
	// The fixture gives no condition settings of its own: one digest for all.
	require.Equal(t, p.Conditions[0].SettingsDigest, p.Conditions[3].SettingsDigest)
	var spec map[string]any
	require.NoError(t, json.Unmarshal(p.Spec, &spec))
	require.Equal(t, "t", spec["name"])
	require.NotContains(t, spec, "base", "the submitter's configuration is in the digests, not the spec")
	var g []analysis.Glossary
	require.NoError(t, json.Unmarshal(top["glossary"], &g))
	require.Len(t, g, 1, "one benchmark played")
	var names []string
	for _, term := range g[0].Terms {
		require.NotEmpty(t, term.Doc, term.Name)
		names = append(names, term.Name)
	}
	require.Subset(t, names, []string{"s", "u", "t", "e", "r", "strict"})
}
