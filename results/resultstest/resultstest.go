// Package resultstest is the conformance suite every results.Store passes: the
// same tests against results/sqlite and results/postgres, including writers in
// several processes at once (the suite re-executes the test binary).
package resultstest

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/fault"
	"github.com/clinevo/clinevo/results"
)

// Backend is how the suite reaches one kind of store.
type Backend struct {
	// Fresh returns the location of a new, empty store (a file path, a DSN)
	// that lives until the test ends.
	Fresh func(t *testing.T) string
	// Open opens the store at a location. Every process of the suite calls it,
	// so it must take everything else (a password) from the environment.
	Open func(ctx context.Context, location string) (results.Store, error)
	// OpenReader opens the store at a location for reading only.
	OpenReader func(ctx context.Context, location string) (results.Store, error)
	// MigrateTo brings a new store at a location to schema version v, as a
	// build of that version left it, and Raw opens its database itself, to
	// write rows as such a build did. Without them the migration cases skip.
	MigrateTo func(ctx context.Context, location string, v int) error
	Raw       func(t *testing.T, location string) *sql.DB
}

// Run runs the suite.
func Run(t *testing.T, b Backend) {
	open := func(t *testing.T) results.Store { return b.open(t, b.Fresh(t)) }
	t.Run("turn log first write wins", func(t *testing.T) { turnLog(t, open(t)) })
	t.Run("concurrent racers on one turn", func(t *testing.T) { racers(t, open(t)) })
	t.Run("traces grades proposals", func(t *testing.T) { grading(t, open(t)) })
	t.Run("record upserts", func(t *testing.T) { records(t, open(t)) })
	t.Run("usage sums", func(t *testing.T) { usage(t, open(t)) })
	t.Run("activity time sums", func(t *testing.T) { times(t, open(t)) })
	t.Run("model cache", func(t *testing.T) { cache(t, open(t)) })
	t.Run("runs and completion", func(t *testing.T) { runs(t, open(t)) })
	t.Run("a run ID has one claim", func(t *testing.T) { claims(t, open(t)) })
	t.Run("a terminated run says why", func(t *testing.T) { terminations(t, open(t)) })
	t.Run("shared settings", func(t *testing.T) { sharedSettings(t, open(t)) })
	t.Run("a reader reads and writes nothing", func(t *testing.T) { reader(t, b) })
	t.Run("writers in several processes", func(t *testing.T) { processes(t, b) })
	t.Run("migrates a store of version 6", func(t *testing.T) { migrates6(t, b) })
}

func (b Backend) open(t *testing.T, location string) results.Store {
	t.Helper()
	s, err := b.Open(context.Background(), location)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	return s
}

func turnLog(t *testing.T, s results.Store) {
	ctx := context.Background()
	const ep = "r1/p1/s1/e1-case-a"
	_, err := s.Decision(ctx, ep, 0)
	require.ErrorIs(t, err, results.ErrNotFound)

	got, err := s.PutDecision(ctx, ep, 0, json.RawMessage(`{"action":"ASK","question":"pain?"}`))
	require.NoError(t, err)
	require.JSONEq(t, `{"action":"ASK","question":"pain?"}`, string(got))
	got, err = s.PutDecision(ctx, ep, 0, json.RawMessage(`{"action":"FINALIZE"}`))
	require.NoError(t, err)
	require.JSONEq(t, `{"action":"ASK","question":"pain?"}`, string(got), "a retried decision gets the first one")
	got, err = s.Decision(ctx, ep, 0)
	require.NoError(t, err)
	require.JSONEq(t, `{"action":"ASK","question":"pain?"}`, string(got))

	first := clinic.Event{Turn: 0, Action: clinic.Ask, Question: "pain?", Status: "answered", Reply: "in the chest", Cost: 5,
		RevealedFacts: []string{"chest pain"}}
	ev, err := s.PutEvent(ctx, ep, first)
	require.NoError(t, err)
	require.Equal(t, first, ev)
	ev, err = s.PutEvent(ctx, ep, clinic.Event{Turn: 0, Action: clinic.Ask, Status: "answered", Reply: "a different reply"})
	require.NoError(t, err)
	require.Equal(t, first, ev, "a retried step gets the first event")

	// Turn 1 has an event but no decision: its decision is not found.
	second := clinic.Event{Turn: 1, Action: clinic.RequestTest, Test: "ecg", Status: "returned", Reply: "ST elevation", Cost: 50}
	_, err = s.PutEvent(ctx, ep, second)
	require.NoError(t, err)
	_, err = s.Decision(ctx, ep, 1)
	require.ErrorIs(t, err, results.ErrNotFound)

	for _, c := range []struct {
		below int
		want  []clinic.Event
	}{{0, nil}, {1, []clinic.Event{first}}, {2, []clinic.Event{first, second}}, {1 << 30, []clinic.Event{first, second}}} {
		evs, err := s.Events(ctx, ep, c.below)
		require.NoError(t, err)
		require.Equal(t, c.want, evs, "events below %d", c.below)
	}
	evs, err := s.Events(ctx, "r1/other", 10)
	require.NoError(t, err)
	require.Empty(t, evs)

	// A gap before the last stored turn is an error, not a shorter episode.
	_, err = s.PutEvent(ctx, ep, clinic.Event{Turn: 3, Action: clinic.Finalize, Status: "final"})
	require.NoError(t, err)
	_, err = s.Events(ctx, ep, 10)
	require.ErrorContains(t, err, "turn 2 is missing")
	evs, err = s.Events(ctx, ep, 3)
	require.NoError(t, err, "the turns below the gap are whole")
	require.Len(t, evs, 2)

	records, turns, err := s.Counts(ctx)
	require.NoError(t, err)
	require.Equal(t, 0, records)
	require.Equal(t, 3, turns, "turns with an event: 0, 1 and 3")
}

// racers stores one turn from many goroutines at once: every caller gets the
// value that was stored, and only one was.
func racers(t *testing.T, s results.Store) {
	ctx := context.Background()
	const ep, n = "race/p1/s1/e1-case-a", 8
	decisions := make([]string, n)
	events := make([]clinic.Event, n)
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for i := range n {
		wg.Go(func() {
			d, err := s.PutDecision(ctx, ep, 0, json.RawMessage(fmt.Sprintf(`{"racer":%d}`, i)))
			if err != nil {
				errs <- err
				return
			}
			decisions[i] = string(d)
			ev, err := s.PutEvent(ctx, ep, clinic.Event{Turn: 0, Action: clinic.Ask, Status: "answered", Reply: strconv.Itoa(i)})
			if err != nil {
				errs <- err
				return
			}
			events[i] = ev
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	stored, err := s.Decision(ctx, ep, 0)
	require.NoError(t, err)
	evs, err := s.Events(ctx, ep, 1)
	require.NoError(t, err)
	require.Len(t, evs, 1)
	for i := range n {
		require.JSONEq(t, string(stored), decisions[i], "racer %d", i)
		require.Equal(t, evs[0], events[i], "racer %d", i)
	}
}

// grade is a stand-in for the process grader's output.
type grade struct {
	Labels []string `json:"labels"`
	Score  float64  `json:"score"`
}

func grading(t *testing.T, s results.Store) {
	ctx := context.Background()
	const ep = "r1/p1/s1/e1-case-a"
	_, err := s.Trace(ctx, ep)
	require.ErrorIs(t, err, results.ErrNotFound)
	require.ErrorIs(t, s.PutGrade(ctx, ep, grade{Score: 1}), results.ErrNotFound, "a grade needs its trace")
	var g grade
	require.ErrorIs(t, s.Grade(ctx, ep, &g), results.ErrNotFound)

	tr := Trace(ep, "case-a", 2)
	require.NoError(t, s.PutTrace(ctx, tr))
	got, err := s.Trace(ctx, ep)
	require.NoError(t, err)
	require.Equal(t, tr, got)
	require.ErrorIs(t, s.Grade(ctx, ep, &g), results.ErrNotFound, "scored but not graded")

	require.NoError(t, s.PutGrade(ctx, ep, grade{Labels: []string{"useful", "redundant"}, Score: 0.5}))
	require.NoError(t, s.Grade(ctx, ep, &g))
	require.Equal(t, grade{Labels: []string{"useful", "redundant"}, Score: 0.5}, g)

	// A re-scored trace replaces the trace and keeps the grade.
	tr2 := Trace(ep, "case-a", 3)
	require.NoError(t, s.PutTrace(ctx, tr2))
	got, err = s.Trace(ctx, ep)
	require.NoError(t, err)
	require.Equal(t, tr2, got)
	g = grade{}
	require.NoError(t, s.Grade(ctx, ep, &g))
	require.Equal(t, 0.5, g.Score)

	var prop map[string][]string
	require.ErrorIs(t, s.Proposal(ctx, ep, &prop), results.ErrNotFound)
	require.NoError(t, s.PutProposal(ctx, ep, map[string][]string{"add": {"ask about radiation"}}))
	require.NoError(t, s.PutProposal(ctx, ep, map[string][]string{"add": {"a retried proposal"}}))
	require.NoError(t, s.Proposal(ctx, ep, &prop))
	require.Equal(t, map[string][]string{"add": {"ask about radiation"}}, prop, "the first proposal stays")
}

// Trace builds a scored trace with n events.
func Trace(episodeID, caseID string, n int) clinic.Trace {
	ev := 0.5
	t := clinic.Trace{SchemaVersion: 1, EpisodeID: episodeID, RunID: strings.Split(episodeID, "/")[0], CaseID: caseID,
		Condition: "E1", Termination: clinic.EndFinalized, Final: clinic.FinalOutput{Diagnosis: []string{"angina"}, Evidence: []string{"chest pain"},
			Plan: []string{"ecg"}, Followup: []string{}},
		Scores:      &clinic.Scores{Diagnosis: 0.75, Evidence: &ev, S: 0.625, Pass: false, T: n - 1, Cost: 55, Referral: "not_scored", MustAsk: 1, Required: 1},
		MemoryWrite: "written", LLMErrorTurns: []int{}}
	for i := range n {
		t.Events = append(t.Events, clinic.Event{Turn: i, Action: clinic.Ask, Question: fmt.Sprintf("question %d", i), Status: "answered", Cost: 5})
	}
	return t
}

// Record builds an episode record of a run at a position in its case order.
func Record(run string, index int, caseID string) results.Record {
	ep := fmt.Sprintf("%s/p1/s1/e%d-%s", run, index, caseID)
	return results.Record{EpisodeID: ep, WorkflowID: ep, Run: run, Kind: "stream", Pass: 1, Stage: 1, Index: index, Number: index,
		CaseID: caseID, Condition: "E1", Scores: clinic.Scores{Diagnosis: 1, S: 1, Strict: true, Pass: true, Referral: "not_scored"},
		Final: clinic.FinalOutput{Diagnosis: []string{"angina"}}, Termination: clinic.EndFinalized, Turns: 2,
		Actions: []string{"ASK pain -> answered", "FINALIZE -> final"}, Retrieved: []string{}, Written: []string{"card-1"},
		LLMErrorTurns: []int{}, Usage: map[string]results.Usage{"doctor": {Calls: 2, PromptTokens: 100, CompletionTokens: 20, CostUSD: 0.25}}}
}

func records(t *testing.T, s results.Store) {
	ctx := context.Background()
	_, _, err := s.RecordTrace(ctx, "r1/p1/s1/e1-a")
	require.ErrorIs(t, err, results.ErrNotFound)
	recs, err := s.Records(ctx, "")
	require.NoError(t, err)
	require.Empty(t, recs)

	// Written out of order, in two runs.
	r2, r1b, r1a := Record("r2", 1, "c"), Record("r1", 2, "b"), Record("r1", 1, "a")
	for _, r := range []results.Record{r2, r1b, r1a} {
		require.NoError(t, s.PutRecord(ctx, r, Trace(r.EpisodeID, r.CaseID, 2)))
	}
	// A retried Record writes the same again: still one record.
	require.NoError(t, s.PutRecord(ctx, r1a, Trace(r1a.EpisodeID, r1a.CaseID, 2)))
	recs, err = s.Records(ctx, "r1")
	require.NoError(t, err)
	require.Equal(t, []results.Record{r1a, r1b}, recs, "a run's records in case order")
	recs, err = s.Records(ctx, "")
	require.NoError(t, err)
	require.Equal(t, []results.Record{r1a, r1b, r2}, recs, "every record, by run then case order")

	// An upsert replaces record and trace.
	changed := r1a
	changed.Scores.S, changed.Written = 0.5, []string{"card-2"}
	require.NoError(t, s.PutRecord(ctx, changed, Trace(r1a.EpisodeID, r1a.CaseID, 4)))
	rec, tr, err := s.RecordTrace(ctx, r1a.EpisodeID)
	require.NoError(t, err)
	require.Equal(t, changed, rec)
	require.Equal(t, Trace(r1a.EpisodeID, r1a.CaseID, 4), tr)

	n, turns, err := s.Counts(ctx)
	require.NoError(t, err)
	require.Equal(t, 3, n)
	require.Equal(t, 0, turns)
}

func usage(t *testing.T, s results.Store) {
	ctx := context.Background()
	u, err := s.UsageOf(ctx, "r1/p1/s1/e1-a")
	require.NoError(t, err)
	require.Empty(t, u)
	// Spend in run r1 (two episodes) and in runs whose names share a prefix or
	// match r1 only as a LIKE pattern would (r_1).
	adds := []struct {
		ep, role string
		u        results.Usage
	}{
		{"r1/p1/s1/e1-a", "doctor", results.Usage{Model: "m-doc", Calls: 1, PromptTokens: 100, CompletionTokens: 10, CostUSD: 0.25, ExtraFields: 2,
			CachedTokens: 60, Endpoint: "http://m/v1 m-doc", RateLimited: 1, WaitedMS: 1500, Limit: 4, LimitAt: 2000,
			ServedModels: []string{"m-doc-2026"}, Fingerprints: []string{"fp_a"}}},
		// A reading of the limit older than the stored one (another worker's
		// clock, a late retry) is summed but does not replace it.
		// Its provenance: a served model met already, and fp_b besides fp_a.
		{"r1/p1/s1/e1-a", "doctor", results.Usage{Calls: 2, PromptTokens: 200, CompletionTokens: 30, CostUSD: 0.5, CacheHits: 1, ExtraFields: 1,
			CachedTokens: 40, RateLimited: 2, WaitedMS: 500, Limit: 8, LimitAt: 1000,
			ServedModels: []string{"m-doc-2026"}, Fingerprints: []string{"fp_a", "fp_b"}}},
		{"r1/p1/s1/e1-a", "judge", results.Usage{Model: "m-judge", Calls: 1, PromptTokens: 50, CompletionTokens: 5, CostUSD: 0.125,
			Fingerprints: []string{"fp_x"}}},
		// fpxx is another fingerprint than fp_x, which LIKE 'fp_x' would match.
		{"r1/p1/s1/e1-a", "judge", results.Usage{Fingerprints: []string{"fpxx"}}},
		{"r1/p1/s1/e2-b", "doctor", results.Usage{Calls: 1, PromptTokens: 10, CompletionTokens: 1, CostUSD: 0.25,
			CachedTokens: 5, Endpoint: "http://m/v1 m-doc", Limit: 2, LimitAt: 3000, ServedModels: []string{"m-doc-2027"}, Fingerprints: []string{"fp_c"}}},
		{"r10/p1/s1/e1-a", "doctor", results.Usage{Calls: 7, PromptTokens: 7, CompletionTokens: 7, CostUSD: 7, Limit: 99, LimitAt: 9000,
			Fingerprints: []string{"fp_z"}}},
		{"rx1/p1/s1/e1-a", "doctor", results.Usage{Calls: 9, PromptTokens: 9, CompletionTokens: 9, CostUSD: 9}},
	}
	for _, a := range adds {
		require.NoError(t, s.AddUsage(ctx, a.ep, a.u, a.role))
	}
	u, err = s.UsageOf(ctx, "r1/p1/s1/e1-a")
	require.NoError(t, err)
	// doctor: 1+2 calls, 100+200 prompt, 10+30 completion, 0.25+0.5 USD, 0+1 hits,
	// 2+1 extra fields, 60+40 cached tokens, 1+2 answered 429, 1500+500 ms
	// waited; an addition without a model name or endpoint keeps the one
	// recorded, and the limit is the reading of 2000 (the later), 4; the
	// served models and fingerprints are every one met, once each.
	require.Equal(t, map[string]results.Usage{
		"doctor": {Model: "m-doc", Calls: 3, PromptTokens: 300, CompletionTokens: 40, CostUSD: 0.75, CacheHits: 1, ExtraFields: 3,
			CachedTokens: 100, Endpoint: "http://m/v1 m-doc", RateLimited: 3, WaitedMS: 2000, Limit: 4, LimitAt: 2000,
			ServedModels: []string{"m-doc-2026"}, Fingerprints: []string{"fp_a", "fp_b"}},
		"judge": {Model: "m-judge", Calls: 1, PromptTokens: 50, CompletionTokens: 5, CostUSD: 0.125, Fingerprints: []string{"fp_x", "fpxx"}},
	}, u)
	u, err = s.RunUsage(ctx, "r1")
	require.NoError(t, err)
	// doctor over e1 and e2: 3+1 calls, 300+10 prompt, 40+1 completion, 0.75+0.25 USD,
	// 100+5 cached tokens; the limit is e2's reading (3000, the latest): 2;
	// the served models and fingerprints of both episodes.
	require.Equal(t, map[string]results.Usage{
		"doctor": {Model: "m-doc", Calls: 4, PromptTokens: 310, CompletionTokens: 41, CostUSD: 1, CacheHits: 1, ExtraFields: 3,
			CachedTokens: 105, Endpoint: "http://m/v1 m-doc", RateLimited: 3, WaitedMS: 2000, Limit: 2, LimitAt: 3000,
			ServedModels: []string{"m-doc-2026", "m-doc-2027"}, Fingerprints: []string{"fp_a", "fp_b", "fp_c"}},
		"judge": {Model: "m-judge", Calls: 1, PromptTokens: 50, CompletionTokens: 5, CostUSD: 0.125, Fingerprints: []string{"fp_x", "fpxx"}},
	}, u, "r10 and rx1 are other runs")
	u, err = s.RunUsage(ctx, "r_1")
	require.NoError(t, err)
	require.Empty(t, u, "an underscore in a run name is a character, not a wildcard")
}

func times(t *testing.T, s results.Store) {
	ctx := context.Background()
	const ep = "r1/p1/s1/e1-a"
	got, err := s.TimeOf(ctx, ep)
	require.NoError(t, err)
	require.Empty(t, got)
	for _, a := range []struct {
		phase string
		ms    float64
	}{{results.PhaseDiagnose, 12.5}, {results.PhaseDiagnose, 7.5}, {results.PhaseUpdate, 3}} {
		require.NoError(t, s.AddTime(ctx, ep, a.phase, a.ms))
	}
	require.NoError(t, s.AddTime(ctx, "r1/p1/s1/e2-b", results.PhaseDiagnose, 100))
	got, err = s.TimeOf(ctx, ep)
	require.NoError(t, err)
	// diagnose 12.5 + 7.5; update 3; the other episode apart.
	require.Equal(t, map[string]float64{results.PhaseDiagnose: 20, results.PhaseUpdate: 3}, got)
}

func cache(t *testing.T, s results.Store) {
	ctx := context.Background()
	_, ok := s.Get(ctx, "judge:k1")
	require.False(t, ok)
	s.Put(ctx, "judge:k1", `{"grade":80}`)
	s.Put(ctx, "judge:k1", `{"grade":10}`)
	s.Put(ctx, "exam:k2", "troponin raised")
	for key, want := range map[string]string{"judge:k1": `{"grade":80}`, "exam:k2": "troponin raised"} {
		got, ok := s.Get(ctx, key)
		require.True(t, ok, key)
		require.Equal(t, want, got, key)
	}
	s.Drop(ctx, "judge:k1", `{"grade":10}`)
	got, ok := s.Get(ctx, "judge:k1")
	require.True(t, ok, "a drop of another reply than the stored one keeps the entry")
	require.Equal(t, `{"grade":80}`, got)
	s.Drop(ctx, "judge:k1", `{"grade":80}`)
	_, ok = s.Get(ctx, "judge:k1")
	require.False(t, ok, "the stale reply is dropped")
	s.Put(ctx, "judge:k1", `{"grade":70}`)
	got, ok = s.Get(ctx, "judge:k1")
	require.True(t, ok)
	require.Equal(t, `{"grade":70}`, got, "and replaced")
}

// claims: the first claim of a run ID keeps it; the same claim (a restart, a
// continue-as-new) describes it again, another is refused and changes nothing;
// a run described before claims adopts the first claim.
func claims(t *testing.T, s results.Store) {
	ctx := context.Background()
	first := results.Run{Run: "good2", Kind: "stream", WorkflowID: "good2/stream", Spec: json.RawMessage(`{"run_id":"good2"}`),
		Created: "2026-11-01T10:00:00Z", Claim: "run-1"}
	require.NoError(t, s.PutRun(ctx, first))
	require.NoError(t, s.PutRun(ctx, first), "the same run again")
	second := first
	second.Claim, second.Spec = "run-2", json.RawMessage(`{"run_id":"good2","limit":8}`)
	require.ErrorIs(t, s.PutRun(ctx, second), results.ErrRunExists)
	legacy := results.Run{Run: "old", Kind: "stream", WorkflowID: "old/stream", Spec: json.RawMessage(`{"run_id":"old"}`), Created: "2026-10-01T00:00:00Z"}
	require.NoError(t, s.PutRun(ctx, legacy))
	adopted := legacy
	adopted.Claim = "run-3"
	require.NoError(t, s.PutRun(ctx, adopted), "a run recorded before claims adopts the first")
	require.ErrorIs(t, s.PutRun(ctx, legacy), results.ErrRunExists, "and keeps it")
	list, _, err := s.Runs(ctx)
	require.NoError(t, err)
	require.Equal(t, []results.Run{adopted, first}, list, "the refused description changed nothing")
}

// terminations: the reason an operator terminated a run is kept with its
// description (the last reason wins), a description written again keeps it,
// and a run the store does not describe is not found and written nowhere.
func terminations(t *testing.T, s results.Store) {
	ctx := context.Background()
	r := results.Run{Run: "stuck", Kind: "stream", WorkflowID: "stuck/stream", Spec: json.RawMessage(`{"run_id":"stuck"}`),
		Created: "2026-11-01T10:00:00Z", Claim: "run-1"}
	require.NoError(t, s.PutRun(ctx, r))
	require.NoError(t, s.TerminateRun(ctx, "stuck", "first reason"))
	require.NoError(t, s.TerminateRun(ctx, "stuck", "a case wedged it"))
	require.NoError(t, s.PutRun(ctx, r), "the same run described again")
	require.ErrorIs(t, s.TerminateRun(ctx, "nowhere", "x"), results.ErrNotFound)
	list, _, err := s.Runs(ctx)
	require.NoError(t, err)
	r.Terminated = "a case wedged it"
	require.Equal(t, []results.Run{r}, list)
}

func sharedSettings(t *testing.T, s results.Store) {
	ctx := context.Background()
	body := json.RawMessage(`{"profile":"medevoeval","memory":{"k":5}}`)
	ref := results.SettingsRef(body)
	require.Regexp(t, `^sha256:[0-9a-f]{64}$`, ref)
	_, err := s.Settings(ctx, ref)
	require.ErrorIs(t, err, results.ErrNotFound)
	require.NoError(t, s.PutSettings(ctx, ref, body))
	require.NoError(t, s.PutSettings(ctx, ref, body), "storing them again changes nothing")
	got, err := s.Settings(ctx, ref)
	require.NoError(t, err)
	require.JSONEq(t, string(body), string(got))
}

// reader opens a store written by a writer for reading: it reads what was
// written, and a write through it fails as a permanent fault.
func reader(t *testing.T, b Backend) {
	loc := b.Fresh(t)
	w := b.open(t, loc)
	ctx := context.Background()
	r := Record("seen", 1, "c")
	require.NoError(t, w.PutRecord(ctx, r, Trace(r.EpisodeID, r.CaseID, 1)))
	require.NoError(t, w.PutRun(ctx, results.Run{Run: "seen", Kind: "stream", WorkflowID: "seen/stream", Spec: json.RawMessage(`{}`), Created: "2026-11-01T00:00:00Z"}))
	rd, err := b.OpenReader(ctx, loc)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, rd.Close()) })
	runs, counts, err := rd.Runs(ctx)
	require.NoError(t, err)
	require.Len(t, runs, 1)
	require.Equal(t, map[string]int{"seen": 1}, counts)
	err = rd.PutRun(ctx, results.Run{Run: "new", Kind: "stream", WorkflowID: "new/stream", Spec: json.RawMessage(`{}`), Created: "2026-11-02T00:00:00Z"})
	require.Error(t, err)
	require.False(t, fault.Of(err).Class.Transient(), "a write to a reader is not waited out: %v", err)
	runs, _, err = w.Runs(ctx)
	require.NoError(t, err)
	require.Len(t, runs, 1, "the reader wrote nothing")
}

func runs(t *testing.T, s results.Store) {
	ctx := context.Background()
	list, counts, err := s.Runs(ctx)
	require.NoError(t, err)
	require.Empty(t, list)
	require.Empty(t, counts)

	b := results.Run{Run: "b", Kind: "stream", WorkflowID: "stream/b", Spec: json.RawMessage(`{"run_id":"b"}`), Created: "2026-11-01T10:00:00Z"}
	a := results.Run{Run: "a", Kind: "stream", WorkflowID: "stream/a", Spec: json.RawMessage(`{"run_id":"a"}`), Created: "2026-11-01T10:00:00Z"}
	early := results.Run{Run: "z", Kind: "experiment", WorkflowID: "experiment/z", Spec: json.RawMessage(`{"name":"z"}`), Created: "2026-10-01T00:00:00Z"}
	for _, r := range []results.Run{b, a, early} {
		require.NoError(t, s.PutRun(ctx, r))
	}
	again := a
	again.Spec, again.Created = json.RawMessage(`{"run_id":"a","limit":3}`), "2026-12-01T00:00:00Z"
	require.NoError(t, s.PutRun(ctx, again))
	for i := 1; i <= 2; i++ {
		r := Record("a", i, "c")
		require.NoError(t, s.PutRecord(ctx, r, Trace(r.EpisodeID, r.CaseID, 1)))
	}
	list, counts, err = s.Runs(ctx)
	require.NoError(t, err)
	require.Equal(t, []results.Run{early, a, b}, list, "by creation, then name; the first description stays")
	require.Equal(t, map[string]int{"a": 2}, counts)

	_, err = s.RunResult(ctx, "a")
	require.ErrorIs(t, err, results.ErrNotFound)
	require.NoError(t, s.CompleteRun(ctx, "a", "stream", []byte(`{"episodes":2}`)))
	got, err := s.RunResult(ctx, "a")
	require.NoError(t, err)
	require.Equal(t, `{"episodes":2}`, string(got))
	require.NoError(t, s.CompleteRun(ctx, "a", "stream", []byte(`{"episodes":2,"rerun":true}`)))
	got, err = s.RunResult(ctx, "a")
	require.NoError(t, err)
	require.Equal(t, `{"episodes":2,"rerun":true}`, string(got), "the last result wins")
	// The run lists when its result was first stored; the others list none.
	list, _, err = s.Runs(ctx)
	require.NoError(t, err)
	for _, r := range list {
		if r.Run != "a" {
			require.Empty(t, r.Completed, r.Run)
			continue
		}
		at, err := time.Parse(time.RFC3339, r.Completed)
		require.NoError(t, err, "run a's completion time")
		require.WithinDuration(t, time.Now(), at, time.Hour)
	}
	// A run described without a creation time gets the store's.
	require.NoError(t, s.PutRun(ctx, results.Run{Run: "now", Kind: "stream", WorkflowID: "stream/now", Spec: json.RawMessage(`{}`)}))
	list, _, err = s.Runs(ctx)
	require.NoError(t, err)
	created := list[len(list)-1]
	require.Equal(t, "now", created.Run, "the newest run lists last")
	at, err := time.Parse(time.RFC3339, created.Created)
	require.NoError(t, err, "its creation time")
	require.WithinDuration(t, time.Now(), at, time.Hour)
}

// The child side of the processes test reads these variables.
const (
	envLocation = "CLINEVO_RESULTSTEST_LOCATION"
	envWriter   = "CLINEVO_RESULTSTEST_WRITER"
	envOut      = "CLINEVO_RESULTSTEST_OUT"
)

const (
	writers = 4  // child processes
	rounds  = 25 // writes of each kind per child
	shared  = "proc/p1/s1/e0-shared"
)

// seen is what one child got back from the store.
type seen struct {
	Decisions []string `json:"decisions"` // per turn
	Replies   []string `json:"replies"`   // per turn
	Cache     []string `json:"cache"`     // per key
}

// processes runs writers child processes of this test binary that open one
// store together and write to it at once: their own records (each twice),
// the same turns, the same usage account, cache keys, run and proposal.
func processes(t *testing.T, b Backend) {
	if loc := os.Getenv(envLocation); loc != "" {
		child(t, b, loc)
		return
	}
	loc := b.Fresh(t)
	dir := t.TempDir()
	pattern := runPattern(t.Name())
	type proc struct {
		cmd    *exec.Cmd
		stdin  io.WriteCloser
		stdout *bufio.Reader
		stderr strings.Builder
	}
	procs := make([]*proc, writers)
	for w := range writers {
		p := &proc{cmd: exec.Command(os.Args[0], "-test.run="+pattern, "-test.count=1")}
		p.cmd.Env = append(os.Environ(), envLocation+"="+loc, envWriter+"="+strconv.Itoa(w),
			envOut+"="+filepath.Join(dir, fmt.Sprintf("writer-%d.json", w)))
		p.cmd.Stderr = &p.stderr
		var err error
		p.stdin, err = p.cmd.StdinPipe()
		require.NoError(t, err)
		out, err := p.cmd.StdoutPipe()
		require.NoError(t, err)
		p.stdout = bufio.NewReader(out)
		require.NoError(t, p.cmd.Start())
		procs[w] = p
	}
	// Every child opens the store (migrating it, all at once), says "ready" and
	// waits for its stdin to close, so their writes overlap.
	for w, p := range procs {
		line, err := p.stdout.ReadString('\n')
		require.NoError(t, err, "writer %d did not get ready: %s", w, p.stderr.String())
		if line != "ready\n" {
			// The child failed before it was ready: its test output says why.
			rest, _ := io.ReadAll(p.stdout)
			_ = p.cmd.Wait()
			t.Fatalf("writer %d did not get ready:\n%s%s\n%s", w, line, rest, p.stderr.String())
		}
	}
	for _, p := range procs {
		require.NoError(t, p.stdin.Close())
	}
	for w, p := range procs {
		rest, err := io.ReadAll(p.stdout)
		require.NoError(t, err)
		require.NoError(t, p.cmd.Wait(), "writer %d:\n%s\n%s", w, rest, p.stderr.String())
	}

	s := b.open(t, loc)
	ctx := context.Background()
	recs, err := s.Records(ctx, "proc")
	require.NoError(t, err)
	require.Len(t, recs, writers*rounds, "every record once")
	for i, r := range recs {
		require.Equal(t, i+1, r.Index, "records in case order, none lost, none twice")
	}
	n, turns, err := s.Counts(ctx)
	require.NoError(t, err)
	require.Equal(t, writers*rounds, n)
	require.Equal(t, rounds, turns)
	events, err := s.Events(ctx, shared, rounds)
	require.NoError(t, err)
	require.Len(t, events, rounds)
	for w := range writers {
		var got seen
		raw, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("writer-%d.json", w)))
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(raw, &got))
		for turn := range rounds {
			d, err := s.Decision(ctx, shared, turn)
			require.NoError(t, err)
			require.JSONEq(t, string(d), got.Decisions[turn], "writer %d turn %d got the stored decision", w, turn)
			require.Equal(t, events[turn].Reply, got.Replies[turn], "writer %d turn %d got the stored event", w, turn)
			reply, ok := s.Get(ctx, fmt.Sprintf("key-%d", turn))
			require.True(t, ok)
			require.Equal(t, reply, got.Cache[turn], "writer %d key %d", w, turn)
		}
	}
	// Each child added 1 call, 10 prompt tokens and 0.5 USD per round.
	want := results.Usage{Calls: writers * rounds, PromptTokens: 10 * writers * rounds, CostUSD: 0.5 * writers * rounds}
	u, err := s.UsageOf(ctx, shared)
	require.NoError(t, err)
	require.Equal(t, map[string]results.Usage{"doctor": want}, u)
	u, err = s.RunUsage(ctx, "proc")
	require.NoError(t, err)
	require.Equal(t, map[string]results.Usage{"doctor": want}, u)
	list, counts, err := s.Runs(ctx)
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.Equal(t, map[string]int{"proc": writers * rounds}, counts)
	var prop map[string]int
	require.NoError(t, s.Proposal(ctx, shared, &prop))
	require.Contains(t, prop, "writer")
}

// child is one writer process.
func child(t *testing.T, b Backend, loc string) {
	w, err := strconv.Atoi(os.Getenv(envWriter))
	require.NoError(t, err)
	ctx := context.Background()
	s, err := b.Open(ctx, loc)
	require.NoError(t, err)
	defer s.Close()
	_, err = fmt.Fprintln(os.Stdout, "ready")
	require.NoError(t, err)
	_, err = io.Copy(io.Discard, os.Stdin) // the parent closes stdin when every writer is ready
	require.NoError(t, err)

	require.NoError(t, s.PutRun(ctx, results.Run{Run: "proc", Kind: "stream", WorkflowID: "stream/proc",
		Spec: json.RawMessage(fmt.Sprintf(`{"writer":%d}`, w)), Created: "2026-11-01T10:00:00Z"}))
	var got seen
	for i := range rounds {
		r := Record("proc", w*rounds+i+1, fmt.Sprintf("w%d", w))
		for range 2 {
			require.NoError(t, s.PutRecord(ctx, r, Trace(r.EpisodeID, r.CaseID, 1)))
		}
		d, err := s.PutDecision(ctx, shared, i, json.RawMessage(fmt.Sprintf(`{"writer":%d}`, w)))
		require.NoError(t, err)
		ev, err := s.PutEvent(ctx, shared, clinic.Event{Turn: i, Action: clinic.Ask, Status: "answered", Reply: fmt.Sprintf("writer %d", w)})
		require.NoError(t, err)
		require.NoError(t, s.AddUsage(ctx, shared, results.Usage{Calls: 1, PromptTokens: 10, CostUSD: 0.5}, "doctor"))
		key := fmt.Sprintf("key-%d", i)
		s.Put(ctx, key, fmt.Sprintf("writer %d", w))
		reply, ok := s.Get(ctx, key)
		require.True(t, ok)
		require.NoError(t, s.PutProposal(ctx, shared, map[string]int{"writer": w}))
		got.Decisions, got.Replies, got.Cache = append(got.Decisions, string(d)), append(got.Replies, ev.Reply), append(got.Cache, reply)
	}
	raw, err := json.Marshal(got)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(os.Getenv(envOut), raw, 0o644))
}

// runPattern is the -test.run pattern that selects exactly the named test.
func runPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}
