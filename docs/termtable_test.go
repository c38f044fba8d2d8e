package docs_test

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// termRow is one row of a table with a "test" column: its first cell (the
// term) and its test cell.
type termRow struct {
	term, tests string
}

// termRows returns the rows of every table of a page that has a "test"
// column (a benchmark page's table of the paper's terms).
func termRows(page string) []termRow {
	var out []termRow
	col, header := -1, true
	for _, line := range strings.Split(page, "\n") {
		if !strings.HasPrefix(line, "|") {
			col, header = -1, true
			continue
		}
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		switch {
		case header:
			col, header = slices.Index(cells, "test"), false
		case col < 0 || strings.Trim(cells[0], ":-") == "":
			// a table without a test column, or the line under the header
		case col >= len(cells):
			out = append(out, termRow{term: cells[0]})
		default:
			out = append(out, termRow{term: cells[0], tests: cells[col]})
		}
	}
	return out
}

// termTest is a test a row names: `TestX`, or `e2e/TestX`, in the
// benchmark's folder; `TestX` (`pkg`) in the module's package pkg.
var termTest = regexp.MustCompile("`((?:[a-z0-9]+/)*)(Test[A-Za-z0-9_]+)`(?: \\(`([a-z0-9/]+)`\\))?")

// termProblems says, for every row of a benchmark's term table, what is
// wrong: a named test that does not exist where the row says, or a row
// backed by no test of the benchmark's folder (root is the module's root).
func termProblems(t *testing.T, root, folder string, rows []termRow) []string {
	t.Helper()
	var out []string
	for _, r := range rows {
		own := 0
		for _, m := range termTest.FindAllStringSubmatch(r.tests, -1) {
			dir := filepath.Join(root, folder, m[1])
			if m[3] != "" {
				dir = filepath.Join(root, m[3], m[1])
			}
			if !slices.Contains(testFuncs(t, dir, "Test"), m[2]) {
				out = append(out, fmt.Sprintf("%q names %s%s, which %s does not declare", r.term, m[1], m[2], dir))
				continue
			}
			if m[3] == "" {
				own++
			}
		}
		if own == 0 {
			out = append(out, fmt.Sprintf("%q names no test of %s", r.term, folder))
		}
	}
	return out
}

// TestTermTablesNameTestsThatExist: every row of a benchmark page's table of
// the paper's terms (docs/benchmarks/NAME.md, a table with a test column) is
// backed by a test of the benchmark's folder (benchmarks/NAME), and every
// test a row names is declared where the row says; the tests themselves run
// with their packages. The probes check that the check can fail.
func TestTermTablesNameTestsThatExist(t *testing.T) {
	const head = "| term | test |\n|---|---|\n"
	for _, c := range []struct {
		name, table string
		problems    int
	}{
		{"a test of the folder", "| cost | `TestCostModel` (worked by hand) |", 0},
		{"one of the folder's end-to-end tests", "| frontier | `e2e/TestSDBenchEndToEnd` |", 0},
		{"another package's beside the folder's", "| panel | `TestGoldenPrompts`, `TestStewardshipByPrice` (`actor`) |", 0},
		{"only another package's", "| panel | `TestStewardshipByPrice` (`actor`) |", 1},
		{"a test of the folder said to be another package's", "| cost | `TestCostModel` (`actor`) |", 2},
		{"a test that does not exist", "| cost | `TestNoSuchThing`, `TestCostModel` |", 1},
		{"a package, no test", "| statistics | `analysis` |", 1},
		{"an empty cell", "| statistics | |", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			rows := termRows("text\n\n" + head + c.table + "\n\nmore text\n")
			require.Len(t, rows, 1)
			require.Len(t, termProblems(t, "..", "benchmarks/sdbench", rows), c.problems)
		})
	}
	require.Empty(t, termRows("| name | what |\n|---|---|\n| a | b |\n"), "a table without a test column")

	pages, err := filepath.Glob(filepath.Join("benchmarks", "*.md"))
	require.NoError(t, err)
	checked := 0
	for _, p := range pages {
		rows := termRows(read(t, filepath.Join("docs", p)))
		if len(rows) == 0 {
			continue
		}
		checked += len(rows)
		folder := filepath.Join("benchmarks", strings.TrimSuffix(filepath.Base(p), ".md"))
		require.Empty(t, termProblems(t, "..", folder, rows), p)
	}
	require.GreaterOrEqual(t, checked, 25, "SDBench's page has a row for each of the paper's terms")
}
