package view

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestUSDWording: "cost USD" is the simulated encounter's cost and "model
// USD" the models' spend, on every page: a table of model use (its header
// counts tokens) prices them as model USD, and no header says a bare USD.
func TestUSDWording(t *testing.T) {
	paths, err := filepath.Glob("templates/*.html")
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	header := regexp.MustCompile(`<tr><th[^\n]*?</tr>`)
	cell := regexp.MustCompile(`<th[^>]*>([^<]*USD[^<]*)</th>`)
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			for _, h := range header.FindAllString(string(b), -1) {
				for _, m := range cell.FindAllStringSubmatch(h, -1) {
					text := m[1]
					require.True(t, strings.Contains(text, "cost USD") || strings.Contains(text, "model USD"), "%s: header %q", p, text)
					if strings.Contains(h, "tokens") {
						require.Contains(t, text, "model USD", "%s: a table of model use prices its calls", p)
					}
				}
			}
		})
	}
}
