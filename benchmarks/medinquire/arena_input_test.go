package medinquire

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/corpus"
)

// sampleLines are the JSON Lines sample's lines.
func sampleLines(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(arenaSample)
	require.NoError(t, err)
	return strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")
}

// TestArenaTruncatedParquet cuts a copy of the release short in a temporary
// directory, another at its head, and damages a third in its data: each
// import fails with an error naming the file (and, for the damage in the
// data, the rows and the column), and nothing is imported. A file whose
// head is gone is still read as parquet (its name and its closing magic
// number say so), not as JSON Lines.
func TestArenaTruncatedParquet(t *testing.T) {
	dir := t.TempDir()
	cut := filepath.Join(dir, "cut.parquet")
	require.NoError(t, os.WriteFile(cut, ArenaRelease[:len(ArenaRelease)/2], 0o644))
	headless := filepath.Join(dir, "headless.bin")
	require.NoError(t, os.WriteFile(headless, ArenaRelease[len(ArenaRelease)/2:], 0o644))
	damaged := bytes.Clone(ArenaRelease)
	for i := 1000; i < 1100; i++ {
		damaged[i] ^= 0xff // inside the first column's pages
	}
	bad := filepath.Join(dir, "damaged.parquet")
	require.NoError(t, os.WriteFile(bad, damaged, 0o644))
	for _, tc := range []struct {
		path string
		want []string
	}{
		{cut, []string{cut + ": not a whole parquet file (cut short or damaged)"}},
		{headless, []string{headless + ": not a whole parquet file (cut short or damaged)"}},
		{bad, []string{bad + ": rows 1 to 128:", `column "id"`}},
	} {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			for _, skip := range []bool{false, true} {
				f, err := os.Open(tc.path)
				require.NoError(t, err)
				cases, _, err := ImportArena(f, tc.path, skip)
				f.Close()
				require.Error(t, err)
				require.Empty(t, cases)
				for _, w := range tc.want {
					require.Contains(t, err.Error(), w)
				}
			}
		})
	}
}

// TestArenaBadRecords: each bad JSON Lines record is an error naming the
// file, the line and the field; with skip-invalid the others import.
func TestArenaBadRecords(t *testing.T) {
	lines := sampleLines(t)[:3]
	for _, tc := range []struct {
		name, line, want string
	}{
		{"unknown field", strings.Replace(lines[1], `"Final Diagnosis":"Scrotal`, `"x":"","Final Diagnosis":"Scrotal`, 1), `field x: unknown field`},
		{"empty diagnosis", strings.Replace(lines[1], `"Final Diagnosis":"Scrotal ulceration secondary to induction chemotherapy with ATRA"`, `"Final Diagnosis":" "`, 1), `field Final Diagnosis: required`},
		{"id not a number", strings.Replace(lines[1], `{"id":2,`, `{"id":"two",`, 1), `field id: expected int64, got JSON string`},
		{"right option not a letter", strings.Replace(lines[1], `"Right Option":"B"`, `"Right Option":"E"`, 1), `field Right Option: want A, B, C or D, got "E"`},
		{"right option not the diagnosis", strings.Replace(lines[1], `"Right Option":"B"`, `"Right Option":"A"`, 1), `field Options.A: the right option "Pyoderma gangrenosum" is not the final diagnosis`},
		// {'Labs': 'x' 'y': 1}: 'x' 'y' join to one string (bytes 9 to 15),
		// so the colon at byte 16 follows a value, not a key.
		{"malformed dict literal", strings.Replace(lines[1], `"Diagnostic Tests":"`, `"Diagnostic Tests":"{'Labs': 'x' 'y': 1}`, 1), `field Diagnostic Tests: python literal: offset 16: unexpected ':'`},
		{"malformed JSON", lines[1][:40] + "\n", `malformed JSON`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := lines[0] + tc.line + lines[2]
			_, _, err := ImportArena(strings.NewReader(in), "arena.jsonl", false)
			require.ErrorContains(t, err, "arena.jsonl:2: ")
			require.ErrorContains(t, err, tc.want)
			cases, skipped, err := ImportArena(strings.NewReader(in), "arena.jsonl", true)
			require.NoError(t, err)
			require.Len(t, cases, 2)
			require.Equal(t, []string{"diagnosisarena-0001", "diagnosisarena-0003"}, []string{cases[0].ID, cases[1].ID})
			require.Len(t, skipped, 1)
			require.Equal(t, 2, skipped[0].Line)
			require.Contains(t, skipped[0].String(), tc.want)
		})
	}
	t.Run("duplicate id", func(t *testing.T) {
		_, _, err := ImportArena(strings.NewReader(lines[0]+lines[0]), "arena.jsonl", false)
		require.ErrorContains(t, err, "arena.jsonl:2: field id: duplicate id 1 (first at arena.jsonl:1)")
	})
	t.Run("nothing valid", func(t *testing.T) {
		_, skipped, err := ImportArena(strings.NewReader("{}\n"), "arena.jsonl", true)
		require.ErrorContains(t, err, "arena.jsonl: no valid cases (1 records skipped)")
		require.Len(t, skipped, 1)
	})
}

// FuzzArenaTests reads Diagnostic Tests fields. Its seeds are every record
// of the release, so `go test` reads all 915 real fields (the 153 dict
// literals among them) without -fuzz: each reads without error to tests
// with a name and a result. Under -fuzz any input must read to such tests or
// fail with a field error, never panic.
func FuzzArenaTests(f *testing.F) {
	recs := releaseRecords(f)
	for _, r := range recs {
		f.Add(r.DiagnosticTests)
	}
	seeds := map[string]bool{}
	for _, r := range recs {
		seeds[r.DiagnosticTests] = true
	}
	f.Fuzz(func(t *testing.T, field string) {
		tests, err := arenaTests(field)
		if err != nil {
			var fe corpus.FieldError
			require.True(t, errors.As(err, &fe), "%v: want a field error", err)
			require.Equal(t, "Diagnostic Tests", fe.Field)
			require.False(t, seeds[field], "a real record fails: %v", err)
			return
		}
		for _, tv := range tests {
			require.NotEmpty(t, strings.TrimSpace(tv.Name))
			require.NotEmpty(t, strings.TrimSpace(tv.Result))
		}
	})
}
