package view_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/results/resultstest"
	"github.com/clinevo/clinevo/view"
)

// compared is the stores of stores(t) with two more cases in each of its
// runs: S by case c1, c2, c3 is 1, 0.25, 0.5 in good and 1, 0.75, 0.5 in
// bad; c2 in bad retrieved a card and holds a CRITICAL_ERROR action.
func compared(t *testing.T) *view.Server {
	t.Helper()
	res, mem, _ := stores(t)
	ctx := context.Background()
	for _, c := range []struct {
		run, id string
		i       int
		s       float64
	}{{"good", "c2", 2, 0.25}, {"good", "c3", 3, 0.5}, {"bad", "c2", 2, 0.75}, {"bad", "c3", 3, 0.5}} {
		r := resultstest.Record(c.run, c.i, c.id)
		r.Scores.S = c.s
		if c.run == "bad" && c.id == "c2" {
			r.Retrieved, r.Labels = []string{"k1"}, []string{"HIGH_YIELD", "CRITICAL_ERROR"}
			r.Final.Diagnosis = []string{"Community-acquired pneumonia"}
		}
		require.NoError(t, res.PutRecord(ctx, r, resultstest.Trace(r.EpisodeID, r.CaseID, 1)))
	}
	srv, err := view.New(view.Options{Results: res, Memory: mem})
	require.NoError(t, err)
	return srv
}

func TestComparePage(t *testing.T) {
	srv := compared(t)
	r := get(t, srv, http.MethodGet, "/compare?run=good&run=bad", nil)
	page := body(t, r)
	require.Equal(t, http.StatusOK, r.StatusCode, page)
	// S: good 1.75/3 = 0.583, bad 2.25/3 = 0.750; d = 0, +0.5, 0: mean
	// +0.167 (html/template writes + as &#43;); one non-zero difference:
	// exact Wilcoxon p = 2·1/2 = 1.
	s := regexp.MustCompile(`<tr class="metric" data-metric="s">.*?</tr>`).FindString(page)
	require.NotEmpty(t, s, page)
	for _, want := range []string{"<td class=\"n\">3</td>", "0.583", "0.750", "&#43;0.167", "<td class=\"n\">1</td>"} {
		require.Contains(t, s, want)
	}
	require.Contains(t, page, "paired by case: 3 cases in both (0 only in good, 0 only in bad)")
	require.Contains(t, page, "Settings: the same.")
	require.Contains(t, page, `<input type="checkbox" name="run" value="good" checked>`)
	// The one case that differs, linked to both episodes side by side.
	pair := "/compare/episode?a=good%2fp1%2fs1%2fe2-c2&amp;b=bad%2fp1%2fs1%2fe2-c2" // html/template's escaping
	require.Contains(t, page, `href="`+pair+`"`)
	require.Equal(t, 1, strings.Count(page, `<tr class="disagreement">`))

	r = get(t, srv, http.MethodGet, strings.ReplaceAll(pair, "&amp;", "&"), nil)
	side := body(t, r)
	require.Equal(t, http.StatusOK, r.StatusCode, side)
	require.Contains(t, side, `data-episode="good/p1/s1/e2-c2"`)
	require.Contains(t, side, `data-episode="bad/p1/s1/e2-c2"`)
	require.Contains(t, side, `<td class="score">0.250</td>`)
	require.Contains(t, side, `<td class="score">0.750</td>`)
	require.Contains(t, side, `<span class="label l-CRITICAL_ERROR">CRITICAL_ERROR</span>`)

	for _, tc := range []struct {
		path   string
		status int
		want   string
	}{
		{"/compare", http.StatusOK, "Pick two or more runs"},
		{"/compare?run=good", http.StatusOK, "Pick two or more runs"},
		{"/compare?run=good&run=nope", http.StatusNotFound, `compare: run "nope" is not in the results store`},
		{"/compare/episode?a=good/p1/s1/e1-c1", http.StatusBadRequest, "?a=EPISODE_ID&b=EPISODE_ID"},
		{"/compare/episode?a=good/p1/s1/e1-c1&b=nope", http.StatusNotFound, "not found"},
	} {
		r := get(t, srv, http.MethodGet, tc.path, nil)
		require.Equal(t, tc.status, r.StatusCode, tc.path)
		require.Contains(t, body(t, r), tc.want, tc.path)
	}
}

// TestRunPageWhere filters a run's episode list with the clause `episode
// list --where` takes, and escapes what it echoes.
func TestRunPageWhere(t *testing.T) {
	srv := compared(t)
	rows := func(page string) int { return strings.Count(page, `<tr class="episode">`) }
	for _, tc := range []struct {
		where string
		n     int
	}{
		{"", 3},
		{"cards>0", 1},
		{"label=critical_error", 1},
		{"diagnosis~pneumonia", 1},
		{"S>=0.5", 3},
		{"S>=0.5 and label!=critical_error", 2}, // c1 and c3
		{"case=c2, S<0.7", 0},                   // bad's c2 scored 0.75
	} {
		t.Run(tc.where, func(t *testing.T) {
			r := get(t, srv, http.MethodGet, "/run?id=bad&where="+url.QueryEscape(tc.where), nil)
			page := body(t, r)
			require.Equal(t, http.StatusOK, r.StatusCode, page)
			require.Equal(t, tc.n, rows(page))
		})
	}
	evil := `turns~<script>alert(1)</script>`
	page := body(t, get(t, srv, http.MethodGet, "/run?id=bad&where="+url.QueryEscape(evil), nil))
	require.NotContains(t, page, "<script>alert")
	require.Contains(t, page, `class="err"`)
	require.Contains(t, page, "turns takes a number")
	require.Equal(t, 3, rows(page), "a clause that does not parse keeps every episode")
	require.Contains(t, page, `value="turns~&lt;script&gt;alert(1)&lt;/script&gt;"`)
}
