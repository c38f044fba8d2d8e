package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/view"
)

// TestViewMemoryMatchesQuery learns a bank, then searches it as of two
// episodes with `clinevo memory query TEXT --as-of N` and on the viewer's
// memory page over the same data directory: the same cards, in the same
// order, with the same scores.
func TestViewMemoryMatchesQuery(t *testing.T) {
	dir := t.TempDir()
	learnBank(t, dir, 60)
	eng, err := engine.Open(context.Background(), engine.Options{DataDir: dir, ReadOnly: true})
	require.NoError(t, err)
	defer eng.Close()
	srv, err := view.New(view.Options{Results: eng.Results, Memory: eng.Memory})
	require.NoError(t, err)

	row := regexp.MustCompile(`<tr class="hit" data-id="([^"]+)" data-score="([^"]+)"><td class="n">[^<]*</td><td>.*?</td><td>([^<]*)</td><td>([^<]*)</td><td class="n">(\d+)</td><td class="n">(\d+)</td>`)
	compared := 0
	for _, asOf := range []int{20, 45} {
		for _, text := range []string{"tight chest when climbing stairs", "burning when passing urine", "sudden severe headache", "red sticky eye"} {
			cli := newRoot()
			var out strings.Builder
			cli.SetOut(&out)
			cli.SetArgs([]string{"--data-dir", dir, "memory", "query", text, "--as-of", fmt.Sprint(asOf)})
			require.NoError(t, cli.Execute())
			var want [][]string
			for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n")[1:] {
				f := strings.Fields(line)
				want = append(want, []string{f[1], f[0], f[2], f[3], f[4], f[5]}) // id, score, kind, run, episode, evicted
			}

			w := httptest.NewRecorder()
			srv.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/memory?"+url.Values{"q": {text}, "as_of": {fmt.Sprint(asOf)}}.Encode(), nil))
			require.Equal(t, http.StatusOK, w.Code)
			b, err := io.ReadAll(w.Body)
			require.NoError(t, err)
			var got [][]string
			for _, m := range row.FindAllStringSubmatch(string(b), -1) {
				got = append(got, m[1:])
			}
			require.NotEmpty(t, want, "%q as of %d", text, asOf)
			require.Equal(t, want, got, "%q as of %d", text, asOf)
			compared += len(got)
		}
	}
	require.Equal(t, 8*5, compared, "five cards for each of eight searches")
}

// TestViewRefusesOpenListenWithoutToken: a non-loopback address needs a
// token, and the command says so before opening anything.
func TestViewRefusesOpenListenWithoutToken(t *testing.T) {
	t.Setenv(viewTokenEnv, "")
	_, err := run(t, nil, "view", "--listen", "0.0.0.0:8233")
	require.ErrorContains(t, err, `listen address "0.0.0.0:8233" is not loopback: serving other machines needs --token`)
	_, err = run(t, nil, "view", "--listen", ":0")
	require.ErrorContains(t, err, "is not loopback")
}
