package gpagent_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/benchmarks/gpagent"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/settings"
)

// gpTrace is a GP episode: a masked treat (c_workflow 5), a test at 30 USD,
// diagnose, treat; its reward 8 and safety cost 0 are the profile's metrics.
func gpTrace(id string, s float64) clinic.Trace {
	return clinic.Trace{SchemaVersion: 1, EpisodeID: id, Events: []clinic.Event{
		gpagent.WithStep(clinic.Event{Turn: 0, Action: gpagent.Treat, Status: clinic.StatusMasked}, gpagent.Step{Penalty: 5}),
		{Turn: 1, Action: clinic.RequestTest, Test: "complete blood count", Status: clinic.StatusReturned, Reply: "Normal.", Cost: 30},
		{Turn: 2, Action: gpagent.Diagnose, Status: clinic.StatusReturned, WorkingDiagnoses: []string{"Migraine"}},
		{Turn: 3, Action: gpagent.Treat, Status: clinic.StatusFinalized, Final: ending(clinic.FinalOutput{Diagnosis: []string{"Migraine"}, Plan: []string{"rest"}}, gpagent.Ending{Disposition: gpagent.PathwayManage})},
	}, Scores: &clinic.Scores{S: s, Metrics: map[string]float64{analysis.MetricReward: 8, analysis.MetricSafetyCost: 1}}}
}

// TestStepsCarryRewardAndCosts checks the trajectory export of a constrained
// MDP (GPAgentBench §4.2): per step the reward and the two costs.
func TestStepsCarryRewardAndCosts(t *testing.T) {
	steps := analysis.Steps(gpTrace("e1", 0), gpagent.Benchmark{})
	require.Len(t, steps, 4)
	var reward, safety, diag []float64
	for _, st := range steps {
		reward, safety, diag = append(reward, st.Reward), append(safety, st.CostSafety), append(diag, st.CostDiagnostic)
	}
	require.Equal(t, []float64{0, 0, 0, 8}, reward, "the episode's reward (the metric, not S) on the last step")
	require.Equal(t, []float64{5, 0, 0, 1}, safety, "c_workflow on the masked step; C_safety on the last")
	require.Equal(t, []float64{0, 30, 0, 0}, diag)
	require.Equal(t, []string{"Migraine"}, steps[2].Action.Diagnosis, "the committed diagnosis")
	require.Equal(t, []string{"rest"}, steps[3].Action.Plan)
	require.Equal(t, clinic.StatusMasked, steps[0].Status)
	plain := analysis.Steps(clinic.Trace{Events: []clinic.Event{{Action: clinic.Finalize, Cost: 5}}, Scores: &clinic.Scores{S: 0.9}}, gpagent.Benchmark{})
	require.Equal(t, 0.9, plain[0].Reward, "S where a profile defines no reward")
	require.Equal(t, 5.0, plain[0].CostDiagnostic)
}

// gpFixture is a finished GP experiment: two streams (no memory, memory) of 2
// stages × 4 cases and a held-out condition, with GPAgentBench's metrics.
func gpFixture() analysis.Input {
	spec := contract.ExperimentSpec{Name: "g", Corpus: "builtin:gp", StageSize: 4, HeldOut: "builtin:gp-heldout", Conditions: []contract.ConditionSpec{
		{Name: "A6-E0", Kind: "stream", Memory: "disabled"}, {Name: "A6-E1", Kind: "stream", Memory: "empty"}, {Name: "A2", Kind: "heldout"}}}
	in := analysis.Input{Benchmarks: gpSet(), Spec: spec, Records: map[string][]results.Record{}}
	// Cases alternate: odd indexes need referral, even ones are manageable.
	rec := func(run string, stage, idx int, right bool) results.Record {
		m := map[string]float64{"mgmt": 0, "turns": 7, "dup_rate": 0.1, "masked": 0, "timeout": 0, "reward": 4}
		if right {
			m["mgmt"] = 1
		}
		if idx%2 == 1 {
			m["miss_refer"], m["dest"] = 1-m["mgmt"], m["mgmt"]
		} else {
			m["miss_gp"], m["dx"], m["tx"] = 1-m["mgmt"], m["mgmt"], 0.5
		}
		id := contract.EpisodeWorkflowID(run, 1, stage, idx, "c")
		return results.Record{EpisodeID: id, WorkflowID: id, Run: run, Stage: stage, Index: idx, CaseID: "c", Scores: clinic.Scores{S: 0.2, Cost: 40, Metrics: m}}
	}
	for i := 1; i <= 8; i++ {
		stage := (i-1)/4 + 1
		// E0 never refers: every referral missed, every manageable case managed.
		in.Records["g-A6-E0"] = append(in.Records["g-A6-E0"], rec("g-A6-E0", stage, i, i%2 == 0))
		// E1 learns: stage 2 right everywhere.
		in.Records["g-A6-E1"] = append(in.Records["g-A6-E1"], rec("g-A6-E1", stage, i, stage == 2 || i%2 == 0))
	}
	for i := 1; i <= 4; i++ {
		in.Records["g-A2"] = append(in.Records["g-A2"], rec("g-A2", 1, i, true))
	}
	gp := settings.Default()
	gp.Benchmark = "gpagent"
	in.Settings = map[string]settings.Settings{"g-A6-E0": gp, "g-A6-E1": gp, "g-A2": gp}
	in.Result = contract.ExperimentResult{Name: "g", Conditions: []contract.ConditionResult{
		{Name: "A6-E0", Kind: "stream", Run: "g-A6-E0", Stream: &contract.StreamResult{StageEnds: []int{4, 8}}},
		{Name: "A6-E1", Kind: "stream", Run: "g-A6-E1", Stream: &contract.StreamResult{StageEnds: []int{4, 8}}},
		{Name: "A2", Kind: "heldout", Run: "g-A2"}}}
	return in
}

// TestGPReportSection writes a GP experiment's report: the metrics table per
// condition, the Miss-Refer against Miss-GP scatter with a point per
// condition, the stage curves of Mgmt and Miss-Refer, and every step of every
// episode (failures too) in steps.jsonl.
func TestGPReportSection(t *testing.T) {
	rep := analysis.Build(gpFixture())
	e1 := rep.Conditions[1]
	// E1: stage 1 misses both referrals (2 of 4 cases wrong), stage 2 none.
	require.InDelta(t, 0.5, e1.Stages[0].Metrics["mgmt"], 1e-9)
	require.InDelta(t, 1, e1.Stages[0].Metrics["miss_refer"], 1e-9)
	require.InDelta(t, 0, e1.Stages[1].Metrics["miss_refer"], 1e-9)
	require.InDelta(t, 0.75, e1.Overall.Metrics["mgmt"], 1e-9)
	dir := t.TempDir()
	require.NoError(t, analysis.Write(dir, rep, func(id string) (clinic.Trace, error) { return gpTrace(id, 0.2), nil }))
	b, err := os.ReadFile(filepath.Join(dir, "index.html"))
	require.NoError(t, err)
	page := string(b)
	require.Contains(t, page, "GPAgentBench: quality, safety, efficiency")
	for _, h := range []string{"Dx acc. (%)", "Tx score (%)", "Mgmt acc. (%)", "Miss-Refer (%)", "Miss-GP (%)", "Dest (%)", "avg turns", "cost USD"} {
		require.Contains(t, page, "<th>"+h+"</th>")
	}
	// The rows: E0 50.0 Mgmt, 100.0 Miss-Refer, 0.0 Miss-GP; E1 75.0, 50.0, 0.0; A2 100.0, 0.0, 0.0.
	require.Contains(t, page, "<tr><td>A6-E0</td><td>8</td><td>100.0</td><td>50.0</td><td>–</td><td>–</td><td>50.0</td><td>100.0</td><td>0.0</td><td>0.0</td>")
	require.Contains(t, page, "<tr><td>A6-E1</td><td>8</td><td>100.0</td><td>50.0</td><td>–</td><td>–</td><td>75.0</td><td>50.0</td><td>0.0</td><td>50.0</td>")
	require.Equal(t, 3, strings.Count(page, `<circle class="point"`), "a point per condition")
	require.Contains(t, page, `class="chart scatter"`)
	require.Contains(t, page, "A6-E0: Miss-Refer 100.0%, Miss-GP 0.0%")
	require.Contains(t, page, `aria-label="learning curves of Mgmt"`)
	require.Contains(t, page, `aria-label="learning curves of Miss-Refer"`)

	f, err := os.Open(filepath.Join(dir, "steps.jsonl"))
	require.NoError(t, err)
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var st analysis.Step
		require.NoError(t, json.Unmarshal(sc.Bytes(), &st))
		n++
	}
	require.Equal(t, 4*(8+8+4), n, "every step of every episode, though S < 0.7")
}

// TestNoGPSectionElsewhere: a report whose conditions play another
// benchmark has no GP section.
func TestNoGPSectionElsewhere(t *testing.T) {
	in := gpFixture()
	for run, s := range in.Settings {
		s.Benchmark = "medevoeval"
		in.Settings[run] = s
	}
	key, data, html := gpagent.Benchmark{}.Section(in, analysis.Build(in))
	require.Equal(t, gpagent.Name, key)
	require.Nil(t, data, "the section's numbers are the conditions' own: no member of report.json")
	require.Empty(t, html)
	_, _, html = gpagent.Benchmark{}.Section(gpFixture(), analysis.Build(gpFixture()))
	require.Contains(t, string(html), "GPAgentBench: quality, safety, efficiency")
}

// TestGPReportRendersInChromium loads the GP report in headless Chromium: the
// scatter and the curves are in the DOM and nothing is logged to the console.
// Without Chromium it skips, except under CI.
func TestGPReportRendersInChromium(t *testing.T) {
	t.Parallel()
	browser, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set and chromium is required for this test (.ci/run installs Debian's chromium): %v", err)
		}
		t.Skipf("chromium not found (install the chromium package, e.g. apt-get install chromium, to run this test): %v", err)
	}
	dir := t.TempDir()
	require.NoError(t, analysis.Write(dir, analysis.Build(gpFixture()), func(id string) (clinic.Trace, error) { return gpTrace(id, 0.2), nil }))
	page := "file://" + filepath.Join(dir, "index.html")
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0", "--user-data-dir=" + t.TempDir()}
	cmd := exec.Command(browser, append(args, "--dump-dom", page)...)
	var logs strings.Builder
	cmd.Stderr = &logs
	out, err := cmd.Output()
	require.NoError(t, err, logs.String())
	dom := string(out)
	require.Equal(t, 3, strings.Count(dom, `class="point"`))
	require.Contains(t, dom, `aria-label="Miss-GP against Miss-Refer"`)
	require.Contains(t, dom, `aria-label="learning curves of Miss-Refer"`)
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, "CONSOLE") || strings.Contains(line, "Uncaught") {
			t.Errorf("console message: %s", line)
		}
	}
}

// TestScatterAxesAreFigure4s: Miss-Refer on x, Miss-GP on y, so an
// over-confident doctor (Claude Sonnet 4.6 in §5: 77.1% Miss-Refer, 13.4%
// Miss-GP) sits bottom right and an over-cautious one (Kimi K2.6: 40.3%,
// 71.8%) top left, where the paper puts them.
func TestScatterAxesAreFigure4s(t *testing.T) {
	cond := func(name string, mr, mg float64) analysis.ConditionReport {
		return analysis.ConditionReport{Name: name, Benchmark: gpagent.Name,
			Overall: analysis.StageMean{N: 1, Metrics: map[string]float64{"miss_refer": mr, "miss_gp": mg}}}
	}
	rep := analysis.Report{Conditions: []analysis.ConditionReport{cond("sonnet", 0.771, 0.134), cond("kimi", 0.403, 0.718)}}
	_, _, html := gpagent.Benchmark{}.Section(analysis.Input{}, rep)
	point := func(name string) (x, y float64) {
		i := strings.Index(string(html), "<title>"+name+":")
		require.Positive(t, i, name)
		j := strings.LastIndex(string(html)[:i], `<circle class="point"`)
		_, err := fmt.Sscanf(string(html)[j:], `<circle class="point" cx="%f" cy="%f"`, &x, &y)
		require.NoError(t, err)
		return x, y
	}
	sx, sy := point("sonnet")
	kx, ky := point("kimi")
	require.Greater(t, sx, kx, "sonnet is right of kimi: x is Miss-Refer")
	require.Greater(t, sy, ky, "sonnet is below kimi (SVG y grows downward): y is Miss-GP")
	require.Contains(t, string(html), "sonnet: Miss-Refer 77.1%, Miss-GP 13.4%")
}

// gpSet is GPAgentBench alone.
func gpSet() bench.Set {
	set, err := bench.NewSet(gpagent.Benchmark{})
	if err != nil {
		panic(err) // one fixed name
	}
	return set
}
