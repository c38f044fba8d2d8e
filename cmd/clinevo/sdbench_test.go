package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/llm/llmtest"
)

// sdTurns are the scripted SDBench doctor's replies, turn by turn, with the
// charge each turn must bring (Nori et al. 2025, §2 and §3: $300 a physician
// visit, a run of consecutive questions and examinations ended by a
// diagnostic test; each test at its price in prices.csv).
var sdTurns = []struct {
	reply  string
	charge float64
}{
	{`{"action":"ASK","questions":["When did the lump appear?","Any weight loss or night sweats?"]}`, 300},               // a new visit
	{`{"action":"ASK","questions":["Do you smoke?"]}`, 0},                                                                // the same visit
	{`{"action":"REQUEST_TEST","tests":["physical examination"]}`, 0},                                                    // examination: part of the visit
	{`{"action":"REQUEST_TEST","tests":["full blood count","chest x-ray","LDH"]}`, 46.48},                                // 7.77 (85025) + 32.67 (71046) + 6.04 (83615); the visit ends
	{`{"action":"ASK","questions":["Does anything make the lump hurt?"]}`, 300},                                          // a new visit
	{`{"action":"REQUEST_TEST","tests":["excisional lymph node biopsy"]}`, 605.53},                                       // 327.35 (38500) + 278.18 (88307)
	{`{"action":"FINALIZE","diagnosis":["Hodgkin lymphoma, classic type"],"working_diagnoses":["Hodgkin lymphoma"]}`, 0}, // the diagnosis costs nothing
}

var sdTurnRE = regexp.MustCompile(`This is turn (\d+) of`)

// TestSDBenchHandBuiltCaseThroughTheCLI imports a hand-built case (history,
// examination, three tests and a biopsy) with `clinevo corpus import
// sdbench` and plays it with `clinevo episode run` and a scripted model
// doctor on the fake endpoint, which reads SDBench's own prompt: each turn's
// charge is the one worked out by hand, the printed trace says what each
// turn was charged and why, and the total is two visits and four tests.
func TestSDBenchHandBuiltCaseThroughTheCLI(t *testing.T) {
	dir := t.TempDir()
	cases := filepath.Join(dir, "hand.jsonl")
	out, err := run(t, nil, "corpus", "import", "sdbench", filepath.Join("..", "..", "benchmarks", "sdbench", "testdata", "handbuilt.json"), "--out", cases)
	require.NoError(t, err, out)

	srv := llmtest.New(t)
	srv.Script = func(_ int, r llmtest.Request) *llmtest.Reply { // only the doctor is on the endpoint
		m := sdTurnRE.FindStringSubmatch(r.User)
		if m == nil || !strings.Contains(r.System, "$300 a visit") {
			return &llmtest.Reply{Status: 200, Content: `{}`} // not SDBench's prompt: the test fails on the turns
		}
		n, _ := strconv.Atoi(m[1])
		return &llmtest.Reply{Status: 200, Content: sdTurns[min(n, len(sdTurns))-1].reply}
	}
	env := map[string]string{"CLINEVO_ROLES_DOCTOR_BACKEND": "openai", "CLINEVO_ROLES_DOCTOR_BASE_URL": srv.BaseURL(),
		"CLINEVO_ROLES_DOCTOR_MODEL": "fake-doctor", "CLINEVO_ROLES_DOCTOR_API_KEY_ENV": "", "CLINEVO_EPISODE_MAX_TURNS": "12"}
	trace := filepath.Join(dir, "trace.jsonl")
	out, err = run(t, env, "episode", "run", "--profile", "sdbench", "--corpus", cases, "--case", "sd-hand-1", "--trace", trace)
	require.NoError(t, err, out)

	f, err := os.Open(trace)
	require.NoError(t, err)
	defer f.Close()
	var tr clinic.Trace
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<22)
	require.True(t, sc.Scan())
	require.NoError(t, json.Unmarshal(sc.Bytes(), &tr))
	require.Len(t, tr.Events, len(sdTurns))
	total := 0.0
	for i, ev := range tr.Events {
		require.InDelta(t, sdTurns[i].charge, ev.Cost, 0.001, "turn %d (%s %s)", i+1, ev.Action, ev.Status)
		total += ev.Cost
	}
	require.InDelta(t, 1252.01, total, 0.001, "2 visits (600) + 46.48 + 605.53")
	require.NotNil(t, tr.Scores)
	require.InDelta(t, 1252.01, tr.Scores.Cost, 0.001)
	require.Equal(t, 2.0, tr.Scores.Metrics["visits"])
	require.Equal(t, 4, tr.Scores.E, "three tests and a biopsy")
	require.Equal(t, 0.0, tr.Scores.Metrics["unmatched_orders"])
	require.Equal(t, 1.0, tr.Scores.Metrics["correct"], "the judge credits the diagnosis")
	for _, line := range []string{
		"charged $300: a new visit $300", "charged $0: within the visit", "charged $0: physical examination within the visit",
		"charged $46.48: complete blood count $7.77 [85025]; chest x ray $32.67 [71046]; lactate dehydrogenase $6.04 [83615]; the visit ends",
		"charged $605.53: lymph node biopsy $605.53 [38500+88307]; the visit ends",
		fmt.Sprintf("cost=%.2f USD", 1252.01), "unmatched_orders=0", "visits=2",
	} {
		require.Contains(t, out, line)
	}
	require.Contains(t, out, "Reed-Sternberg", "the biopsy's recorded result")
}
