package view_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/benchmarks/klinike"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/runner"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/view"
)

// fixture is a small recorded experiment played through the embedded
// Temporal server: a stream of 12 cases in 2 stages of 6 with stage
// evaluations and the retention replay, held-out H0 and H3 over 4 cases, and
// a second stream paused after its first episodes (running, for live status).
type fixture struct {
	env *enginetest.Env
	// episode is a stream episode of stage 2 that was shown cards.
	episode results.Record
	trace   clinic.Trace
	// card is a card written by the stream.
	card clinic.Card
}

func record(t *testing.T) fixture {
	t.Helper()
	env := enginetest.Start(t)
	ctx := context.Background()
	spec := contract.ExperimentSpec{Name: "vt", Corpus: "builtin:stream", Limit: 12, StageSize: 6, HeldOut: "builtin:heldout", HeldOutLimit: 4,
		EvalConcurrency: 2, Settings: settings.Overrides{"evolver": map[string]any{"memory_budget": 6}},
		Conditions: []contract.ConditionSpec{{Name: "E1", Kind: "stream", Memory: "empty", StageEval: true, Retention: "final"},
			{Name: "H0", Kind: "heldout"}, {Name: "H3", Kind: "heldout", From: "E1"}}}
	run, err := engine.StartExperiment(ctx, env.Client, env.Engine.Results, "", spec)
	require.NoError(t, err)
	require.NoError(t, run.Get(ctx, nil))

	live := contract.StreamSpec{RunID: "live", Corpus: "builtin:stream", Limit: 40, StageSize: 20}
	_, err = engine.StartStream(ctx, env.Client, env.Engine.Results, "", live)
	require.NoError(t, err)
	require.NoError(t, env.Client.SignalWorkflow(ctx, contract.StreamWorkflowID("live"), "", contract.SignalPause, nil))
	enginetest.Eventually(t, 30*time.Second, "the live stream paused", func() bool {
		v, err := env.Client.QueryWorkflow(ctx, contract.StreamWorkflowID("live"), "", contract.QueryProgress)
		var p contract.Progress
		return err == nil && v.Get(&p) == nil && p.Paused
	})

	f := fixture{env: env}
	recs, err := env.Engine.Results.Records(ctx, "vt-E1")
	require.NoError(t, err)
	require.Len(t, recs, 12)
	for _, r := range recs {
		if r.Stage == 2 && len(r.Retrieved) > 0 && f.episode.EpisodeID == "" {
			f.episode = r
		}
		if len(r.Written) > 0 && f.card.ID == "" {
			f.card, err = env.Engine.Memory.Get(ctx, r.Written[0])
			require.NoError(t, err)
		}
	}
	require.NotEmpty(t, f.episode.EpisodeID, "a stage-2 episode was shown cards")
	require.NotEmpty(t, f.card.ID, "the stream wrote cards")
	_, f.trace, err = env.Engine.Results.RecordTrace(ctx, f.episode.EpisodeID)
	require.NoError(t, err)
	return f
}

func newServer(t *testing.T, f fixture, token string) *view.Server {
	t.Helper()
	srv, err := view.New(view.Options{Benchmarks: f.env.Engine.Benchmarks, Results: f.env.Engine.Results, Memory: f.env.Engine.Memory, Workflows: view.Temporal(f.env.Client),
		TemporalAddress: f.env.Server.Address(), Namespace: "default", TemporalUI: "http://127.0.0.1:8080", Token: token})
	require.NoError(t, err)
	return srv
}

func get(t *testing.T, h http.Handler, method, path string, header http.Header) *http.Response {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	for k, v := range header {
		req.Header[k] = v
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w.Result()
}

func body(t *testing.T, r *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(r.Body)
	require.NoError(t, err)
	return string(b)
}

// liveCards is the number of cards of the stream live after episode n.
func liveCards(t *testing.T, f fixture, n int) int {
	t.Helper()
	cards, err := f.env.Engine.Memory.List(context.Background(), memory.Filter{Runs: []string{"vt-E1"}, AsOf: n})
	require.NoError(t, err)
	return len(cards)
}

// TestViewer serves the recorded experiment: every page, the explanations,
// the live status, the read-only and token rules, and the pages in Chromium.
func TestViewer(t *testing.T) {
	f := record(t)
	ctx := context.Background()
	ep := url.QueryEscape(f.episode.EpisodeID)
	pages := []string{"/", "/part/runs", "/run?id=vt-E1", "/run?id=vt-E1&stage=1", "/run?id=" + url.QueryEscape("vt-E1/eval-s01"), "/run?id=vt-H3", "/run?id=live",
		"/part/run?id=live", "/episode?id=" + ep, "/memory", "/memory?runs=vt-E1&as_of=6&q=" + url.QueryEscape("tight chest when climbing stairs"),
		"/memory?runs=vt-E1&from=3&to=12", "/card?id=" + url.QueryEscape(f.card.ID), "/experiment?name=vt", "/part/experiment?name=vt",
		"/static/view.css", "/static/view.js"}

	t.Run("every page", func(t *testing.T) {
		srv := newServer(t, f, "")
		for _, p := range pages {
			r := get(t, srv, http.MethodGet, p, nil)
			b := body(t, r)
			require.Equal(t, http.StatusOK, r.StatusCode, "%s: %s", p, b)
			require.NotEmpty(t, b, p)
			h := get(t, srv, http.MethodHead, p, nil)
			require.Equal(t, http.StatusOK, h.StatusCode, "HEAD %s", p)
		}
	})

	t.Run("every link", func(t *testing.T) {
		// Follow every link of the viewer's pages from the runs page: each
		// answers 200.
		srv := newServer(t, f, "")
		href := regexp.MustCompile(`(?:href|src)="(/[^"#]*)`)
		seen := map[string]bool{"/": true}
		queue := []string{"/", "/memory?runs=vt-E1&as_of=12&q=" + url.QueryEscape("tight chest when climbing stairs")}
		kinds := map[string]bool{}
		for len(queue) > 0 {
			p := queue[0]
			queue = queue[1:]
			r := get(t, srv, http.MethodGet, p, nil)
			b := body(t, r)
			require.Equal(t, http.StatusOK, r.StatusCode, "%s: %s", p, b)
			path, _, _ := strings.Cut(p, "?")
			kinds[path] = true
			if path == "/static/view.css" || path == "/static/view.js" {
				continue
			}
			for _, m := range href.FindAllStringSubmatch(b, -1) {
				link := strings.ReplaceAll(m[1], "&amp;", "&")
				if !seen[link] {
					seen[link] = true
					queue = append(queue, link)
				}
			}
		}
		for _, k := range []string{"/", "/run", "/episode", "/memory", "/card", "/experiment", "/compare", "/static/view.css", "/static/view.js"} {
			require.True(t, kinds[k], "a link to %s", k)
		}
		t.Logf("%d links followed", len(seen))
	})

	t.Run("bad addresses", func(t *testing.T) {
		srv := newServer(t, f, "")
		for _, tc := range []struct {
			path   string
			status int
			want   string
		}{
			{"/run?id=nope", http.StatusNotFound, `run "nope" is not in the results store`},
			{"/run", http.StatusBadRequest, "?id=RUN"},
			{"/episode?id=nope", http.StatusNotFound, "not found"},
			{"/card?id=nope", http.StatusNotFound, "card not found"},
			{"/experiment?name=nope", http.StatusNotFound, `experiment "nope" is not in the results store`},
			{"/nope", http.StatusNotFound, ""},
			{"/memory?as_of=x", http.StatusBadRequest, `parameter as_of: "x" is not a non-negative whole number`},
			{"/memory?from=5&to=2", http.StatusBadRequest, "need 0 <= from < to"},
			{"/run?id=vt-E1&stage=two", http.StatusBadRequest, `stage "two" is not a number`},
		} {
			r := get(t, srv, http.MethodGet, tc.path, nil)
			require.Equal(t, tc.status, r.StatusCode, tc.path)
			require.Contains(t, body(t, r), tc.want, tc.path)
		}
	})

	t.Run("read-only", func(t *testing.T) {
		srv := newServer(t, f, "")
		for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
			r := get(t, srv, m, "/memory", nil)
			require.Equal(t, http.StatusMethodNotAllowed, r.StatusCode, m)
			require.Equal(t, "GET, HEAD", r.Header.Get("Allow"))
		}
		// Serving every page changes neither store: the episode page replays
		// retrieval frozen, so no retrieval is counted.
		before := snapshot(t, f)
		for _, p := range pages {
			require.Equal(t, http.StatusOK, get(t, srv, http.MethodGet, p, nil).StatusCode, p)
		}
		require.Equal(t, before, snapshot(t, f))
	})

	t.Run("token", func(t *testing.T) {
		srv := newServer(t, f, "s3cret")
		require.Equal(t, http.StatusUnauthorized, get(t, srv, http.MethodGet, "/", nil).StatusCode)
		require.Equal(t, http.StatusUnauthorized, get(t, srv, http.MethodGet, "/static/view.css", nil).StatusCode, "assets too")
		require.Equal(t, http.StatusUnauthorized, get(t, srv, http.MethodGet, "/", http.Header{"Authorization": {"Bearer wrong"}}).StatusCode)
		require.Equal(t, http.StatusUnauthorized, get(t, srv, http.MethodGet, "/?token=wrong", nil).StatusCode)
		require.Equal(t, http.StatusOK, get(t, srv, http.MethodGet, "/", http.Header{"Authorization": {"Bearer s3cret"}}).StatusCode)
		r := get(t, srv, http.MethodGet, "/run?id=vt-E1&token=s3cret", nil)
		require.Equal(t, http.StatusSeeOther, r.StatusCode)
		require.Equal(t, "/run?id=vt-E1", r.Header.Get("Location"), "the token leaves the address")
		cookies := r.Cookies()
		require.Len(t, cookies, 1)
		require.True(t, cookies[0].HttpOnly)
		require.Equal(t, http.StatusOK, get(t, srv, http.MethodGet, "/run?id=vt-E1", http.Header{"Cookie": {cookies[0].String()}}).StatusCode)
		require.Equal(t, http.StatusUnauthorized, get(t, srv, http.MethodGet, "/", http.Header{"Cookie": {"clinevo_view_token=wrong"}}).StatusCode)
	})

	t.Run("status and progress from Temporal", func(t *testing.T) {
		srv := newServer(t, f, "")
		r := get(t, srv, http.MethodGet, "/", nil)
		index := body(t, r)
		require.Regexp(t, `data-run="vt".*\n?.*s-completed`, index)
		require.Regexp(t, `data-run="vt-E1"[^\n]*s-completed`, index)
		require.Regexp(t, `data-run="live"[^\n]*s-paused[^\n]*<progress max="40" value="\d+">`, index)
		require.Contains(t, index, `data-refresh="/part/runs"`, "a page with a running stream refreshes")
		run := body(t, get(t, srv, http.MethodGet, "/part/run?id=vt-E1", nil))
		require.Contains(t, run, "s-completed")
		require.Equal(t, "0", get(t, srv, http.MethodGet, "/part/run?id=vt-E1", nil).Header.Get("X-Clinevo-Live"), "a finished run stops polling")
		require.Empty(t, get(t, srv, http.MethodGet, "/part/run?id=live", nil).Header.Get("X-Clinevo-Live"), "a paused stream keeps polling")

		// Temporal down: the pages load, say so in a note, and show what the
		// results store says: every finished run completed, with its score.
		down, err := view.New(view.Options{Benchmarks: f.env.Engine.Benchmarks, Results: f.env.Engine.Results, Memory: f.env.Engine.Memory, Workflows: failing{}})
		require.NoError(t, err)
		r = get(t, down, http.MethodGet, "/run?id=vt-E1", nil)
		require.Equal(t, http.StatusOK, r.StatusCode)
		page := body(t, r)
		require.Contains(t, page, `title="Temporal did not answer: connection refused">from the results store; Temporal did not answer</small>`)
		require.Contains(t, page, `class="status s-completed"`)
		none, err := view.New(view.Options{Benchmarks: f.env.Engine.Benchmarks, Results: f.env.Engine.Results, Memory: f.env.Engine.Memory})
		require.NoError(t, err)
		for _, srv := range []*view.Server{down, none} {
			index := body(t, get(t, srv, http.MethodGet, "/", nil))
			require.NotContains(t, index, `class="err"`, "no red rows")
			for _, run := range []string{"vt", "vt-E1", "vt-H0", "vt-H3", "vt-E1/eval-s01", "vt-E1/eval-s02"} {
				require.Regexp(t, `data-run="`+regexp.QuoteMeta(run)+`"[^\n]*s-completed`, index, run)
			}
			// The score column holds each run's mean S as the records give it.
			require.Regexp(t, `data-run="vt-E1"[^\n]*<td class="n score">`+regexp.QuoteMeta(fmt.Sprintf("%.3f", meanS(t, f, "vt-E1")))+`</td>`, index)
			require.Regexp(t, `data-run="vt"[^\n]*<td class="n">3 / 3</td>`, index, "every condition finished")
			// The paused stream has no result: its state is unknown, not red.
			require.Regexp(t, `data-run="live"[^\n]*state unknown`, index)
		}
		require.Contains(t, body(t, get(t, none, http.MethodGet, "/", nil)), "no Temporal configured")

		// A run waiting out a failing dependency says what it waits for, and
		// the page keeps polling.
		wait, err := view.New(view.Options{Benchmarks: f.env.Engine.Benchmarks, Results: f.env.Engine.Results, Memory: f.env.Engine.Memory, Workflows: waitingFor{}})
		require.NoError(t, err)
		r = get(t, wait, http.MethodGet, "/part/run?id=vt-E1", nil)
		page = body(t, r)
		require.Contains(t, page, "s-waiting")
		require.Contains(t, page, "waiting for results/postgres (unavailable) since 2026-12-01 10:00:00 UTC, 7 failed attempts, in vt-E1/p1/s02/e0007-stream-0007")
		require.Empty(t, r.Header.Get("X-Clinevo-Live"), "a waiting run keeps polling")
	})

	t.Run("run page", func(t *testing.T) {
		srv := newServer(t, f, "")
		recs, err := f.env.Engine.Results.Records(ctx, "vt-E1")
		require.NoError(t, err)
		for _, stage := range []int{1, 2} {
			var book []clinic.Rule
			for _, r := range recs {
				if r.Stage == stage {
					book = r.RuleBook // records are in case order: the last of the stage
				}
			}
			page := body(t, get(t, srv, http.MethodGet, fmt.Sprintf("/run?id=vt-E1&stage=%d", stage), nil))
			require.Equal(t, len(book), strings.Count(page, `<tr class="rule">`), "stage %d", stage)
			for _, rule := range book {
				require.Contains(t, page, htmlText(rule.Text))
			}
			require.Contains(t, page, `class="chart curve"`)
			require.Equal(t, 12, strings.Count(page, `<tr class="episode">`))
		}
	})

	t.Run("episode page", func(t *testing.T) {
		srv := newServer(t, f, "")
		page := body(t, get(t, srv, http.MethodGet, "/episode?id="+ep, nil))
		require.Equal(t, len(f.trace.Events), strings.Count(page, `<li class="turn"`))
		for _, ev := range f.trace.Events {
			require.Contains(t, page, fmt.Sprintf(`data-turn="%d"`, ev.Turn))
			if ev.Reply != "" {
				require.Contains(t, page, htmlText(ev.Reply))
			}
		}
		require.Contains(t, page, "Similarities are the doctor's retrieval replayed")
		require.NotContains(t, page, "differ from the recorded ones")
		shown := regexp.MustCompile(`<tr class="shown"><td class="n">([0-9.]+)</td>`).FindAllStringSubmatch(page, -1)
		want := 0
		for _, ev := range f.trace.Events {
			want += len(ev.RetrievedCards)
		}
		require.Len(t, shown, want, "every card shown has its replayed similarity")
		require.Contains(t, page, "S_evi = max(0, (m − λ·h)/K)")
		require.Contains(t, page, "the scoring code gives the stored S again from these numbers")
		require.Contains(t, page, htmlText("temporal workflow show --workflow-id '"+f.episode.WorkflowID+"'"))
		require.Contains(t, page, "http://127.0.0.1:8080/namespaces/default/workflows/"+url.PathEscape(f.episode.WorkflowID))
		require.Equal(t, len(f.trace.Events), strings.Count(page, `<tr class="label-row">`), "a label with its rationale per turn")
		require.Contains(t, page, "Search the memory with this turn")

		// A held-out H3 episode reads E1's final memory.
		h3, err := f.env.Engine.Results.Records(ctx, "vt-H3")
		require.NoError(t, err)
		page = body(t, get(t, srv, http.MethodGet, "/episode?id="+url.QueryEscape(h3[0].EpisodeID), nil))
		require.Contains(t, page, "Similarities are the doctor's retrieval replayed on the memory as of episode 12")
		require.NotContains(t, page, "differ from the recorded ones")
	})

	t.Run("memory page", func(t *testing.T) {
		srv := newServer(t, f, "")
		for _, n := range []int{2, 12} {
			page := body(t, get(t, srv, http.MethodGet, fmt.Sprintf("/memory?runs=vt-E1&as_of=%d", n), nil))
			require.Contains(t, page, fmt.Sprintf(`<span id="live-count">%d</span>`, liveCards(t, f, n)))
			require.Equal(t, liveCards(t, f, n), strings.Count(page, `<tr class="card"`))
		}
		require.NotEqual(t, liveCards(t, f, 2), liveCards(t, f, 12))
		// Without as_of the bank is the live one; as_of=0 is the empty bank,
		// before episode 1, as for `clinevo memory query --as-of 0`.
		now := body(t, get(t, srv, http.MethodGet, "/memory?runs=vt-E1", nil))
		require.Contains(t, now, "<h2>Bank now:")
		require.Contains(t, now, fmt.Sprintf(`<span id="live-count">%d</span>`, liveCards(t, f, 0)))
		require.Positive(t, liveCards(t, f, 0))
		q := "&q=" + url.QueryEscape("tight chest when climbing stairs")
		empty := body(t, get(t, srv, http.MethodGet, "/memory?runs=vt-E1&as_of=0"+q, nil))
		require.Contains(t, empty, "<h2>Bank as of episode 0, before episode 1:")
		require.Contains(t, empty, `<span id="live-count">0</span>`)
		require.Contains(t, empty, `No card.`, "the empty bank finds nothing")
		require.NotContains(t, body(t, get(t, srv, http.MethodGet, "/memory?runs=vt-E1&as_of=12"+q, nil)), `No card.`)
		// From an episode after which a card was written that was evicted later.
		all, err := f.env.Engine.Memory.List(ctx, memory.Filter{Runs: []string{"vt-E1"}, IncludeEvicted: true})
		require.NoError(t, err)
		from := 0
		for _, c := range all {
			if c.EvictedEpisode > 0 && from == 0 {
				from = c.CreatedEpisode
			}
		}
		require.Positive(t, from, "the small bank evicted cards")
		d, err := memory.DiffOf(ctx, f.env.Engine.Memory, memory.Filter{Runs: []string{"vt-E1"}}, from, 12)
		require.NoError(t, err)
		require.NotEmpty(t, d.Evicted)
		require.NotEmpty(t, d.Written)
		page := body(t, get(t, srv, http.MethodGet, fmt.Sprintf("/memory?runs=vt-E1&from=%d&to=12", from), nil))
		require.Equal(t, len(d.Written), strings.Count(page, `<tr class="diff-written">`))
		require.Equal(t, len(d.Evicted), strings.Count(page, `<tr class="diff-evicted">`))
		page = body(t, get(t, srv, http.MethodGet, "/card?id="+url.QueryEscape(f.card.ID), nil))
		require.Contains(t, page, "The episode that wrote it")
		require.Contains(t, page, htmlText(f.card.Text))
	})

	t.Run("experiment page", func(t *testing.T) {
		srv := newServer(t, f, "")
		page := body(t, get(t, srv, http.MethodGet, "/experiment?name=vt", nil))
		require.Contains(t, page, "Learning curves")
		require.Contains(t, page, `class="chart heatmap"`)
		require.Contains(t, page, `href="/episode?id=`+ep+`"`)
		require.NotContains(t, page, "records written so far")
		// The plan beside the use: every condition, the doctor's calls
		// planned and used (built-in roles: a call a turn, no USD).
		require.Contains(t, page, "<h2>Plan and use</h2>")
		require.Equal(t, strings.Count(page, `<tr class="condition">`), strings.Count(page, `<tr class="plan-condition">`))
		require.Regexp(t, `<tr class="plan-role"><td>doctor</td><td>builtin</td><td class="n">\d+</td><td class="n">[1-9]\d*</td>`, page)
	})

	t.Run("klinike tool calls, no secret", func(t *testing.T) {
		// A KlinikeBench episode played in process and recorded under a run
		// whose roles name an endpoint and a key variable.
		cp, err := corpus.NewLibrary(f.env.Engine.Benchmarks).Load("builtin:klinike@7")
		require.NoError(t, err)
		c, ok := cp.Case("klinike-0001")
		require.True(t, ok)
		set := settings.Default()
		set.Benchmark = klinike.Name
		id := contract.EpisodeWorkflowID("kl", 1, 1, 1, c.ID)
		tr, err := runner.Play(ctx, c, runner.Deps{Bench: klinike.Benchmark{}, Roles: runner.BuiltinRoles(), Settings: set}, runner.Meta{RunID: "kl", EpisodeID: id, Number: 1, Pass: 1, Stage: 1})
		require.NoError(t, err)
		rec := results.Record{EpisodeID: id, WorkflowID: id, Run: "kl", Kind: "stream", Pass: 1, Stage: 1, Index: 1, Number: 1, CaseID: c.ID,
			Scores: *tr.Scores, Final: tr.Final, Termination: tr.Termination, Turns: len(tr.Events), RuleBook: []clinic.Rule{}}
		set.Roles["judge"] = settings.Role{Backend: settings.OpenAI, BaseURL: "https://judge.example.invalid/v1", Model: "judge-model", APIKeyEnv: "KL_SECRET_KEY_VAR", APIKeyFile: "/secret/key/file"}
		spec, err := json.Marshal(contract.StreamSpec{RunID: "kl", Corpus: "builtin:klinike@7", Settings: set})
		require.NoError(t, err)
		require.NoError(t, f.env.Engine.Results.PutRun(ctx, results.Run{Run: "kl", Kind: "stream", WorkflowID: contract.StreamWorkflowID("kl"), Spec: spec}))
		require.NoError(t, f.env.Engine.Results.PutRecord(ctx, rec, tr))

		srv := newServer(t, f, "")
		page := body(t, get(t, srv, http.MethodGet, "/episode?id="+url.QueryEscape(id), nil))
		calls := 0
		for _, ev := range tr.Events {
			if ev.Action == klinike.ToolCall {
				calls++
				require.Contains(t, page, `<span class="who">doctor</span> <span>`+klinike.CallOf(ev.Ext).Tool)
			}
		}
		require.Positive(t, calls, "the built-in doctor calls tools")
		require.Equal(t, calls, strings.Count(page, `<span class="who">tool</span>`), "every tool call's result")
		// KlinikeBench's gates and formulas with the stored numbers, checked
		// against S, and no MedEvoEval key points or U.
		require.Contains(t, page, "s = D·W·A·1[H = 1] = ")
		require.Contains(t, page, "S and r_multi follow from the stored gates by the formulas above")
		require.NotContains(t, page, "<h3>Evidence</h3>")
		require.Contains(t, page, `<tr><td>U</td><td class="n">–</td>`)
		run := body(t, get(t, srv, http.MethodGet, "/run?id=kl", nil))
		require.Regexp(t, `<tr class="total"><td>all</td>(<td class="n">[^<]*</td>){4}<td class="n">–</td>`, run, "U is not KlinikeBench's")
		require.Contains(t, run, "judge: openai/judge-model")
		for _, secret := range []string{"judge.example.invalid", "KL_SECRET_KEY_VAR", "/secret/key/file"} {
			require.NotContains(t, run, secret)
			require.NotContains(t, page, secret)
		}
	})

	t.Run("stopped and not started", func(t *testing.T) {
		// A stream stopped early stores a result that says so: the viewer
		// tells it from a completed one, with Temporal and without. An
		// experiment that was described and never ran has conditions that have
		// not started (not "not in Temporal").
		spec, err := json.Marshal(contract.StreamSpec{RunID: "halt", Corpus: "builtin:stream", Limit: 40, StageSize: 20})
		require.NoError(t, err)
		require.NoError(t, f.env.Engine.Results.PutRun(ctx, results.Run{Run: "halt", Kind: "stream", WorkflowID: contract.StreamWorkflowID("halt"), Spec: spec}))
		require.NoError(t, f.env.Engine.Results.CompleteRun(ctx, "halt", "stream", []byte(`{"run":"halt","episodes":3,"stopped":true}`)))
		exp := contract.ExperimentSpec{Name: "idle", Corpus: "builtin:stream", Limit: 4, StageSize: 2, HeldOut: "builtin:heldout", HeldOutLimit: 2,
			Conditions: []contract.ConditionSpec{{Name: "E1", Kind: "stream", Memory: "empty"}, {Name: "H0", Kind: "heldout"}}}
		raw, err := json.Marshal(exp)
		require.NoError(t, err)
		require.NoError(t, f.env.Engine.Results.PutRun(ctx, results.Run{Run: "idle", Kind: "experiment", WorkflowID: contract.ExperimentWorkflowID("idle"), Spec: raw}))
		down, err := view.New(view.Options{Benchmarks: f.env.Engine.Benchmarks, Results: f.env.Engine.Results, Memory: f.env.Engine.Memory, Workflows: failing{}})
		require.NoError(t, err)
		for name, srv := range map[string]*view.Server{"Temporal": newServer(t, f, ""), "no Temporal": down} {
			index := body(t, get(t, srv, http.MethodGet, "/", nil))
			require.Regexp(t, `data-run="halt"[^\n]*s-stopped`, index, name)
			page := body(t, get(t, srv, http.MethodGet, "/experiment?name=idle", nil))
			require.Equal(t, 3, strings.Count(page, `class="status s-not-started"`), "%s: the experiment and its two conditions", name)
			require.NotContains(t, page, "not in Temporal", name)
		}
	})

	t.Run("episode pages link the run's next and previous", func(t *testing.T) {
		srv := newServer(t, f, "")
		recs, err := f.env.Engine.Results.Records(ctx, "vt-E1")
		require.NoError(t, err)
		for i, r := range recs {
			page := body(t, get(t, srv, http.MethodGet, "/episode?id="+url.QueryEscape(r.EpisodeID), nil))
			prev, next := `rel="prev" href="/episode?id=`, `rel="next" href="/episode?id=`
			if i == 0 {
				require.NotContains(t, page, prev)
				require.Contains(t, page, "first episode of the run")
			} else {
				require.Regexp(t, `(?i)`+regexp.QuoteMeta(prev+url.QueryEscape(recs[i-1].EpisodeID)+`"`), page)
			}
			if i == len(recs)-1 {
				require.NotContains(t, page, next)
				require.Contains(t, page, "last episode of the run")
			} else {
				require.Regexp(t, `(?i)`+regexp.QuoteMeta(next+url.QueryEscape(recs[i+1].EpisodeID)+`"`), page)
			}
		}
	})

	t.Run("glossary", func(t *testing.T) {
		// The run, episode and experiment pages define S, U, T, E and R in
		// the words of the run's benchmark, and its headline metrics.
		srv := newServer(t, f, "")
		for _, p := range []string{"/run?id=vt-E1", "/episode?id=" + ep, "/experiment?name=vt"} {
			page := body(t, get(t, srv, http.MethodGet, p, nil))
			for _, term := range []string{"s", "u", "t", "e", "r", "strict"} {
				require.Contains(t, page, `data-term="`+term+`"`, "%s: %s", p, term)
			}
		}
		kl := body(t, get(t, srv, http.MethodGet, "/run?id=kl", nil))
		require.Contains(t, kl, `data-term="`+klinike.MetricD+`"`, "KlinikeBench's own headline metrics")
		require.NotContains(t, kl, `data-term="u"`, "KlinikeBench defines no U")
	})

	t.Run("compare page", func(t *testing.T) {
		srv := newServer(t, f, "")
		r := get(t, srv, http.MethodGet, "/compare?run=vt-H0&run=vt-H3", nil)
		page := body(t, r)
		require.Equal(t, http.StatusOK, r.StatusCode, page)
		require.Contains(t, page, "paired by case: 4 cases in both (0 only in vt-H0, 0 only in vt-H3)")
		require.Regexp(t, `<tr class="setting"><td><code>memory</code></td><td class="text">none</td><td class="text">vt-E1</td></tr>`, page,
			"H3 read the stream's memory, H0 none")
		row := regexp.MustCompile(`<tr class="metric" data-metric="s">.*?</tr>`).FindString(page)
		require.Contains(t, row, fmt.Sprintf(`<td class="n">%.3f</td><td class="n">%.3f</td>`, meanS(t, f, "vt-H0"), meanS(t, f, "vt-H3")))
		require.Contains(t, row, `<td class="n">4</td>`, "four pairs")
		require.NotContains(t, page, "Learning curves", "held-out runs have no stages")

		// Two streams: their curves overlaid (a legend entry each) and
		// stage tables.
		page = body(t, get(t, srv, http.MethodGet, "/compare?run=vt-E1&run=live", nil))
		curves := regexp.MustCompile(`(?s)<svg class="chart curve".*?</svg>`).FindString(page)
		require.Contains(t, curves, `font-size="12">vt-E1</text>`)
		require.Contains(t, curves, `font-size="12">live</text>`)
		require.Contains(t, page, "By stage (headline metrics)")
		// The experiment page links its conditions' comparison.
		exp := body(t, get(t, srv, http.MethodGet, "/experiment?name=vt", nil))
		require.Contains(t, exp, `href="/compare?run=vt-E1&amp;run=vt-H0&amp;run=vt-H3&amp;"`)
	})

	t.Run("filtered episode list", func(t *testing.T) {
		srv := newServer(t, f, "")
		recs, err := f.env.Engine.Results.Records(ctx, "vt-E1")
		require.NoError(t, err)
		for _, tc := range []struct {
			where string
			keep  func(results.Record) bool
		}{
			{"cards>0", func(r results.Record) bool { return len(r.Retrieved) > 0 }},
			{"stage=2 and cards=0", func(r results.Record) bool { return r.Stage == 2 && len(r.Retrieved) == 0 }},
			{"turns>=4", func(r results.Record) bool { return r.Turns >= 4 }},
		} {
			want := 0
			for _, r := range recs {
				if tc.keep(r) {
					want++
				}
			}
			page := body(t, get(t, srv, http.MethodGet, "/run?id=vt-E1&where="+url.QueryEscape(tc.where), nil))
			require.Equal(t, want, strings.Count(page, `<tr class="episode">`), tc.where)
			require.Contains(t, page, fmt.Sprintf("%d of 12 episodes match", want), tc.where)
		}
	})

	t.Run("retrievals as of an episode", func(t *testing.T) {
		// The bank's counter is to date; as of an episode the page counts the
		// stream episodes up to it that were shown each card. As of the last
		// episode both agree for every card; earlier, some card has fewer.
		srv := newServer(t, f, "")
		retr := regexp.MustCompile(`<tr class="card" data-id="([^"]+)">(?:<td[^>]*>.*?</td>){6}<td class="n">(\d+)</td>`)
		counts := func(asOf int) map[string]string {
			page := body(t, get(t, srv, http.MethodGet, fmt.Sprintf("/memory?runs=vt-E1&as_of=%d", asOf), nil))
			out := map[string]string{}
			for _, m := range retr.FindAllStringSubmatch(page, -1) {
				out[m[1]] = m[2]
			}
			require.Equal(t, liveCards(t, f, asOf), len(out), "as of %d", asOf)
			return out
		}
		cards, err := f.env.Engine.Memory.List(ctx, memory.Filter{Runs: []string{"vt-E1"}, AsOf: 12})
		require.NoError(t, err)
		last := counts(12)
		for _, c := range cards {
			require.Equal(t, fmt.Sprint(c.Retrievals), last[c.ID], "card %s as of the last episode", c.ID)
		}
		fewer := false
		for id, n := range counts(8) {
			fewer = fewer || n != last[id]
		}
		require.True(t, fewer, "some card was shown after episode 8")
	})

	t.Run("chromium", func(t *testing.T) { browse(t, f) })
}

// snapshot is everything the stores hold that a page could change.
func snapshot(t *testing.T, f fixture) string {
	t.Helper()
	ctx := context.Background()
	cards, err := f.env.Engine.Memory.List(ctx, memory.Filter{IncludeEvicted: true})
	require.NoError(t, err)
	recs, turns, err := f.env.Engine.Results.Counts(ctx)
	require.NoError(t, err)
	runs, counts, err := f.env.Engine.Results.Runs(ctx)
	require.NoError(t, err)
	return fmt.Sprintf("%+v\n%d %d\n%+v %v", cards, recs, turns, runs, counts)
}

// htmlText is text as html/template escapes it.
func htmlText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}

// meanS is the mean S of a run's records.
func meanS(t *testing.T, f fixture, run string) float64 {
	t.Helper()
	recs, err := f.env.Engine.Results.Records(context.Background(), run)
	require.NoError(t, err)
	require.NotEmpty(t, recs)
	sum := 0.0
	for _, r := range recs {
		sum += r.Scores.S
	}
	return sum / float64(len(recs))
}

type failing struct{}

// waitingFor is a Temporal whose workflows all wait for the results database.
type waitingFor struct{}

func (waitingFor) State(_ context.Context, id string) (view.WorkflowState, error) {
	return view.WorkflowState{Status: "waiting", Waiting: []contract.Waiting{{WorkflowID: "vt-E1/p1/s02/e0007-stream-0007", Activity: "Decide",
		Dependency: "results/postgres", Class: "unavailable", Since: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), Attempts: 7,
		Error: "connection refused"}}}, nil
}

func (failing) State(context.Context, string) (view.WorkflowState, error) {
	return view.WorkflowState{}, errors.New("connection refused")
}

func TestCheckListen(t *testing.T) {
	for _, tc := range []struct {
		addr, token, want string
	}{
		{"127.0.0.1:8233", "", ""},
		{"127.0.0.2:8233", "", ""},
		{"[::1]:8233", "", ""},
		{"localhost:8233", "", ""},
		{"0.0.0.0:8233", "", `listen address "0.0.0.0:8233" is not loopback: serving other machines needs --token`},
		{":8233", "", "is not loopback"},
		{"192.0.2.7:8233", "", "is not loopback"},
		{"example.org:80", "", "is not loopback"},
		{"0.0.0.0:8233", "t", "is too weak to guard"},
		{"0.0.0.0:8233", "0123456789abcdef", ""},
		{"8233", "", `listen address "8233": want host:port`},
	} {
		t.Run(tc.addr+"/"+tc.token, func(t *testing.T) {
			err := view.CheckListen(tc.addr, tc.token)
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// browse serves the recorded run on loopback with a token and loads the pages
// in headless Chromium: no console message on any page, every turn of the
// episode, the live cards of the bank as of two episodes, and, measured in
// the browser at 1,400 px by a probe script the test adds to each page, no
// table wider than the page; screenshots of the index (with Temporal gone),
// run, episode, memory and experiment pages go to the test's directory (or
// to CLINEVO_VIEW_SCREENSHOTS when set). Without Chromium it skips, except
// under CI, where a missing browser is a failure.
func browse(t *testing.T, f fixture) {
	browser, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set and chromium is required for this test (.ci/run installs Debian's chromium): %v", err)
		}
		t.Skipf("chromium not found (install the chromium package, e.g. apt-get install chromium, to run this test): %v", err)
	}
	const token = "browser-token"
	hs := httptest.NewServer(probed(newServer(t, f, token)))
	defer hs.Close()
	// The same stores with Temporal gone: a client of a port nothing listens on.
	gone := httptest.NewServer(probed(goneServer(t, f, token)))
	defer gone.Close()
	// And with every workflow waiting out a failing dependency: the longest
	// status text a row holds (the one that ran off the experiment's table).
	waitSrv, err := view.New(view.Options{Benchmarks: f.env.Engine.Benchmarks, Results: f.env.Engine.Results, Memory: f.env.Engine.Memory, Workflows: waitingFor{}, Token: token})
	require.NoError(t, err)
	waiting := httptest.NewServer(probed(waitSrv))
	defer waiting.Close()
	shotDir := os.Getenv("CLINEVO_VIEW_SCREENSHOTS")
	if shotDir == "" {
		shotDir = t.TempDir()
	}
	ep := url.QueryEscape(f.episode.EpisodeID)
	shot := func(name string) string { return filepath.Join(shotDir, "view-"+name+".png") }
	pages := []string{"/", "/run?id=vt-E1", "/run?id=vt-H0", "/card?id=" + url.QueryEscape(f.card.ID), "/experiment?name=vt",
		"/memory?runs=vt-E1&from=3&to=12", "/memory?runs=vt-E1&as_of=6&q=" + url.QueryEscape("burning when passing urine"),
		"/episode?id=" + ep, "/memory?runs=vt-E1&as_of=2", "/memory?runs=vt-E1&as_of=12", "/memory?runs=vt-E1&as_of=6"}
	h0, err := f.env.Engine.Results.Records(context.Background(), "vt-H0")
	require.NoError(t, err)
	comparePage, filtered := "/compare?run=vt-E1&run=live&run=vt-H3", "/run?id=vt-E1&where="+url.QueryEscape("cards>0")
	pairPage := "/compare/episode?a=" + ep + "&b=" + url.QueryEscape(h0[0].EpisodeID)
	pages = append(pages, comparePage, filtered, pairPage)
	var loads []load
	for _, p := range pages {
		loads = append(loads, load{base: hs.URL, page: p})
	}
	memoryShot := load{base: hs.URL, page: "/memory?runs=vt-E1&as_of=12&q=" + url.QueryEscape("tight chest when climbing stairs")}
	loads = append(loads, load{base: gone.URL, page: "/"}, load{base: waiting.URL, page: "/experiment?name=vt"}, load{base: waiting.URL, page: "/"},
		memoryShot)
	// The screenshots are taken by the loads that dump the same pages' DOM.
	shots := map[load]string{{base: hs.URL, page: "/run?id=vt-E1"}: shot("run"), {base: hs.URL, page: "/episode?id=" + ep}: shot("episode"),
		{base: hs.URL, page: "/experiment?name=vt"}: shot("experiment"), memoryShot: shot("memory"),
		{base: gone.URL, page: "/"}: shot("index-no-temporal"), {base: waiting.URL, page: "/experiment?name=vt"}: shot("experiment-waiting"),
		{base: hs.URL, page: comparePage}: shot("compare"), {base: hs.URL, page: pairPage}: shot("compare-episode")}
	for l := range shots {
		require.Contains(t, loads, l, "a screenshot of a page that is loaded")
	}
	got := chromeAll(t, browser, token, loads, shots)

	probe := regexp.MustCompile(`<pre id="probe">([^<]*)</pre>`)
	domOf := func(base, page string) string {
		t.Helper()
		out := got[load{base: base, page: page}]
		require.Contains(t, out, `<a class="brand" href="/">clinevo view</a>`, page)
		m := probe.FindStringSubmatch(out)
		require.NotNil(t, m, "%s: the probe ran", page)
		var layout struct {
			Page   int      `json:"page"`
			Scroll int      `json:"scroll"`
			Wide   []string `json:"wide"`
		}
		require.NoError(t, json.Unmarshal([]byte(strings.ReplaceAll(m[1], "&quot;", `"`)), &layout), m[1])
		require.LessOrEqual(t, layout.Scroll, layout.Page, "%s: the page scrolls sideways at 1,400 px", page)
		require.Empty(t, layout.Wide, "%s: tables wider than the page at 1,400 px", page)
		return out
	}
	dom := func(page string) string { return domOf(hs.URL, page) }
	for _, p := range pages[:7] {
		dom(p)
	}
	page := dom("/episode?id=" + ep)
	require.Equal(t, len(f.trace.Events), strings.Count(page, `<li class="turn"`))
	for _, ev := range f.trace.Events {
		require.Contains(t, page, fmt.Sprintf(`data-turn="%d"`, ev.Turn))
	}
	require.Contains(t, page, `rel="prev"`)
	require.Contains(t, page, `id="glossary"`)
	for _, n := range []int{2, 12} {
		page := dom(fmt.Sprintf("/memory?runs=vt-E1&as_of=%d", n))
		require.Contains(t, page, fmt.Sprintf(`<span id="live-count">%d</span>`, liveCards(t, f, n)))
		require.Equal(t, liveCards(t, f, n), strings.Count(page, `<tr class="card"`))
	}
	require.Contains(t, dom("/memory?runs=vt-E1&as_of=6"), "retrievals (to episode 6)")
	// The index refreshes its live part in place (the paused stream keeps it
	// live): after the refresh (within the load's virtual time) it still shows
	// every run.
	index := dom("/")
	require.Contains(t, index, `data-run="live"`)
	// With Temporal gone, the index shows each run's stored status and score.
	index = domOf(gone.URL, "/")
	require.NotContains(t, index, `class="err"`)
	require.Regexp(t, `data-run="vt-E1"[^\n]*s-completed[^\n]*`, index)
	require.Regexp(t, `data-run="vt-E1"[^\n]*<td class="n score">0\.\d{3}</td>`, index)
	// Charts: titles, round ticks, x ticks on the running means, the heat
	// map's legend.
	run := dom("/run?id=vt-E1")
	require.Equal(t, strings.Count(run, `<svg class="chart`), strings.Count(run, `<text class="title"`))
	require.Regexp(t, `class="chart running"[^€]*?class="xtick"`, run)
	for _, m := range regexp.MustCompile(`<text class="ytick"[^>]*>([^<]*)</text>`).FindAllStringSubmatch(run, -1) {
		require.Regexp(t, `^-?\d+(\.\d{1,2})?$`, m[1], "a round tick")
	}
	for _, p := range []string{"/experiment?name=vt", "/"} {
		page := domOf(waiting.URL, p) // no table wider than the page, with every row waiting
		require.Contains(t, page, "waiting for results/postgres", p)
	}
	// The compare page: a pair section for each run after the first, the
	// curves overlaid; the filtered list; two episodes side by side.
	cmp := dom(comparePage)
	require.Equal(t, 2, strings.Count(cmp, `<section class="pair"`))
	require.Contains(t, cmp, `<svg class="chart curve"`)
	// An S row per pair, and one per stage the two streams both played.
	require.Equal(t, 2+strings.Count(cmp, `<h4>Stage `), strings.Count(cmp, `<tr class="metric" data-metric="s">`))
	require.Positive(t, strings.Count(cmp, `<h4>Stage `), "vt-E1 and live share stage 1")
	withCards := 0
	recs, err := f.env.Engine.Results.Records(context.Background(), "vt-E1")
	require.NoError(t, err)
	for _, r := range recs {
		if len(r.Retrieved) > 0 {
			withCards++
		}
	}
	require.Equal(t, withCards, strings.Count(dom(filtered), `<tr class="episode">`))
	side := dom(pairPage)
	require.Contains(t, side, `data-episode="`+f.episode.EpisodeID+`"`)
	require.Contains(t, side, `data-episode="`+h0[0].EpisodeID+`"`)
	exp := dom("/experiment?name=vt")
	require.Contains(t, exp, `<g class="legend">`)
	require.Contains(t, exp, "Provenance")
	for _, file := range shots {
		info, err := os.Stat(file)
		require.NoError(t, err)
		require.Greater(t, info.Size(), int64(10000), "a screenshot with content: %s", file)
	}
	t.Logf("screenshots in %s", shotDir)
}

// load is one page load in Chromium, which dumps its DOM (and takes a
// screenshot of it at 1,400 px wide when chromeAll is given a file for it).
type load struct{ base, page string }

// chromeAll loads every page, as many at once as there are CPUs, each in a
// browser of its own (a profile directory each, so that loads run side by
// side), and returns each load's DOM; a load with a file in shots also
// takes a screenshot into that file in the same browser run. The token rides
// on the first request and the viewer moves it into a cookie that the page's
// own fetches carry. A console message on any page is an error.
func chromeAll(t *testing.T, browser, token string, loads []load, shots map[load]string) map[load]string {
	t.Helper()
	type loaded struct {
		out, logs string
		err       error
	}
	one := func(l load, profile string) loaded {
		u, err := url.Parse(l.base + l.page)
		if err != nil {
			return loaded{err: err}
		}
		q := u.Query()
		q.Set("token", token)
		u.RawQuery = q.Encode()
		args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0", "--user-data-dir=" + profile,
			"--virtual-time-budget=7000", "--window-size=1400,1800", "--dump-dom"}
		if file, ok := shots[l]; ok {
			args = append(args, "--screenshot="+file)
		}
		args = append(args, u.String())
		cmd := exec.Command(browser, args...)
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err = cmd.Run()
		return loaded{out: out.String(), logs: errb.String(), err: err}
	}
	results := make([]loaded, len(loads))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, l := range loads {
		profile := t.TempDir()
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i] = one(l, profile)
		}()
	}
	wg.Wait()
	got := map[load]string{}
	for i, l := range loads {
		r := results[i]
		require.NoError(t, r.err, "%s%s: %s", l.base, l.page, r.logs)
		for _, line := range strings.Split(r.logs, "\n") {
			if strings.Contains(line, "CONSOLE") || strings.Contains(line, "Uncaught") {
				t.Errorf("%s: console message: %s", l.page, line)
			}
		}
		got[l] = r.out
	}
	return got
}

// goneServer is the viewer of f's stores whose Temporal is gone: its client
// dials a loopback port that nothing listens on.
func goneServer(t *testing.T, f fixture, token string) *view.Server {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	c, err := client.NewLazyClient(client.Options{HostPort: addr})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	srv, err := view.New(view.Options{Benchmarks: f.env.Engine.Benchmarks, Results: f.env.Engine.Results, Memory: f.env.Engine.Memory, Workflows: view.Temporal(c), Token: token})
	require.NoError(t, err)
	return srv
}

// probeJS measures the page once it has loaded: the page's width, how wide
// it scrolls, and the tables whose right edge passes the page's.
const probeJS = `window.addEventListener("load", () => {
  const page = document.documentElement.clientWidth;
  const wide = [...document.querySelectorAll("table")].filter(t => t.getBoundingClientRect().right > page + 1).map(t => t.className || t.rows[0].innerText.slice(0, 40));
  const out = document.createElement("pre");
  out.id = "probe";
  out.textContent = JSON.stringify({page: page, scroll: document.documentElement.scrollWidth, wide: wide});
  document.body.appendChild(out);
});`

// probed serves h's pages with the probe script added (as a same-origin
// script, which the viewer's content security policy allows).
func probed(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/probe.js" {
			w.Header().Set("Content-Type", "text/javascript")
			_, _ = io.WriteString(w, probeJS)
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		b := rec.Body.String()
		if strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") && strings.Contains(b, "</body>") {
			b = strings.Replace(b, "</body>", `<script src="/probe.js"></script></body>`, 1)
			w.Header().Del("Content-Length")
		}
		w.WriteHeader(rec.Code)
		_, _ = io.WriteString(w, b)
	})
}
