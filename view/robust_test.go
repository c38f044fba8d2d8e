package view_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/memory/local"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/results/resultstest"
	"github.com/clinevo/clinevo/results/sqlite"
	"github.com/clinevo/clinevo/view"
)

// stores are a results store and a bank with two described streams, their
// records and results, and a card, without Temporal: the viewer shows the
// stores' statuses.
func stores(t *testing.T) (results.Store, memory.Store, string) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	res, err := sqlite.Open(ctx, filepath.Join(dir, "results.db"))
	require.NoError(t, err)
	t.Cleanup(func() { res.Close() })
	mem, err := local.Open(ctx, filepath.Join(dir, "memory.db"), memory.HashEmbedder{})
	require.NoError(t, err)
	t.Cleanup(func() { mem.Close() })
	for _, run := range []string{"good", "bad"} {
		require.NoError(t, res.PutRun(ctx, results.Run{Run: run, Kind: "stream", WorkflowID: run + "/stream", Spec: json.RawMessage(`{"run_id":"` + run + `"}`)}))
		r := resultstest.Record(run, 1, "c1")
		require.NoError(t, res.PutRecord(ctx, r, resultstest.Trace(r.EpisodeID, r.CaseID, 1)))
		require.NoError(t, res.CompleteRun(ctx, run, "stream", []byte(`{"run":"`+run+`","episodes":1}`)))
	}
	require.NoError(t, mem.Upsert(ctx, []clinic.Card{{CardHint: clinic.CardHint{ID: "k1", Kind: clinic.CardSuccess, Text: "ask about the stairs"},
		Bank: "success", Run: "good", Pass: 1, Stage: 1, CreatedEpisode: 1}}))
	return res, mem, filepath.Join(dir, "results.db")
}

// TestViewerRefusesWhatTheCLIRefuses (issue 37, item 11): a Host header
// that is not the listen address is refused (DNS rebinding reached the
// token-less loopback viewer), the Bearer scheme is case-insensitive, a
// one-character or blank token does not guard a public address, and kind=
// and bank= filters the CLI refuses are refused with 400.
func TestViewerRefusesWhatTheCLIRefuses(t *testing.T) {
	res, mem, _ := stores(t)
	srv, err := view.New(view.Options{Results: res, Memory: mem, Listen: "127.0.0.1:7280"})
	require.NoError(t, err)
	host := func(h string) int {
		req, _ := http.NewRequest(http.MethodGet, "http://"+h+"/", nil)
		return serve(srv, req).StatusCode
	}
	require.Equal(t, http.StatusMisdirectedRequest, host("attacker.example:7280"), "a rebound name")
	require.Equal(t, http.StatusMisdirectedRequest, host("192.0.2.7:7280"), "another IP than loopback")
	for _, h := range []string{"127.0.0.1:7280", "localhost:7280", "[::1]:7280", "LOCALHOST:7280"} {
		require.Equal(t, http.StatusOK, host(h), h)
	}
	named, err := view.New(view.Options{Results: res, Memory: mem, Listen: "viewer.lan:7280", Token: strings.Repeat("z", 16)})
	require.NoError(t, err)
	req, _ := http.NewRequest(http.MethodGet, "http://attacker.example:7280/", nil)
	require.Equal(t, http.StatusMisdirectedRequest, serve(named, req).StatusCode, "a named host takes its own name")

	const token = "0123456789abcdef0123"
	guarded, err := view.New(view.Options{Results: res, Memory: mem, Listen: "0.0.0.0:7280", Token: token})
	require.NoError(t, err)
	for _, scheme := range []string{"Bearer", "bearer", "BEARER"} {
		req, _ := http.NewRequest(http.MethodGet, "http://viewer.lan:7280/", nil)
		req.Header.Set("Authorization", scheme+" "+token)
		require.Equal(t, http.StatusOK, serve(guarded, req).StatusCode, scheme)
	}
	for _, weak := range []string{"t", "   ", "short-token", "sixteen chars ok"} {
		require.ErrorContains(t, view.CheckListen("0.0.0.0:7280", weak), "is too weak to guard \"0.0.0.0:7280\"", "%q", weak)
	}
	require.NoError(t, view.CheckListen("0.0.0.0:7280", token))

	for path, want := range map[string]string{
		"/memory?kind=bogus":        `parameter kind: kind "bogus": want one of success, correction, rule, advice, summary, memory, experience`,
		"/memory?kind=success,poem": `parameter kind: kind "poem"`,
		"/memory?bank=vault":        `parameter bank: bank "vault": want one of success, correction, rules, advice, summary, memory, experience`,
	} {
		req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:7280"+path, nil)
		r := serve(srv, req)
		require.Equal(t, http.StatusBadRequest, r.StatusCode, path)
		require.Contains(t, body(t, r), want, path)
	}
}

// TestCorruptRowLeavesOtherPages (issue 37, item 11): a run's stored result
// and a record that do not decode cost that run's status and the retrieval
// counts, named on the page, not the index and the memory page (a 500).
func TestCorruptRowLeavesOtherPages(t *testing.T) {
	res, mem, path := stores(t)
	db, err := sql.Open("sqlite", "file:"+path)
	require.NoError(t, err)
	_, err = db.Exec(`UPDATE run_results SET result='{not json' WHERE run='bad'`)
	require.NoError(t, err)
	_, err = db.Exec(`UPDATE episodes SET record='garbage' WHERE run='bad'`)
	require.NoError(t, err)
	require.NoError(t, db.Close())
	srv, err := view.New(view.Options{Results: res, Memory: mem})
	require.NoError(t, err)
	r := get(t, srv, http.MethodGet, "/", nil)
	page := body(t, r)
	require.Equal(t, http.StatusOK, r.StatusCode, page)
	require.Contains(t, page, "good")
	require.Contains(t, page, htmlText("the results store's result of run bad does not decode"))
	require.Contains(t, page, htmlText("the records of run bad do not decode"))
	r = get(t, srv, http.MethodGet, "/memory?as_of=1", nil)
	page = body(t, r)
	require.Equal(t, http.StatusOK, r.StatusCode, page)
	require.Contains(t, page, "ask about the stairs", "the bank is shown")
	require.Contains(t, page, htmlText("retrieval counts as of episode 1 could not be read from the records"))
}

func serve(h http.Handler, req *http.Request) *http.Response {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w.Result()
}
