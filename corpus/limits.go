package corpus

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/internal/jsonl"
)

// Limits of a case (docs/corpora.md), clinevo's own choices: far above any
// published case we know of (an NEJM case record, as a sequential-diagnosis full case holds it, is
// tens of kilobytes; an AgentClinic field is under 2 KiB) and far below
// what a run can carry: every turn's prompt holds the case's revealed text,
// the results store keeps every prompt, and nothing of a case may come near
// Temporal's 2 MiB payload limit.
const (
	// MaxCaseIDLength bounds a case ID, which is part of workflow IDs.
	MaxCaseIDLength = 128
	// MaxKeyBytes bounds a case's condition and system keys, search
	// attributes of every episode (Temporal refuses a value past 2 KiB by
	// default); DiagnosisArena's longest diagnosis is 144 bytes.
	MaxKeyBytes = 512
	// MaxTextBytes bounds any one text of a case (a fact, a result, ...).
	MaxTextBytes = 64 << 10
	// MaxCaseBytes bounds a case as JSON (its line in a native corpus).
	MaxCaseBytes = 512 << 10
	// MaxItems bounds any one list of a case (facts, tests, catalog, ...).
	MaxItems = 10_000
	// MaxFileBytes bounds a file an importer reads whole (a JSON array).
	MaxFileBytes = 256 << 20
)

// caseIDWant says what a case ID takes.
const caseIDWant = "a case ID takes 1 to 128 ASCII letters, digits, '.', '_', '-' and ':' (it is part of workflow IDs, <run>/p1/s01/e0001-<case>, " +
	"which Temporal carries as ASCII; keep another spelling in provenance.source_case_id)"

// ValidateCaseID checks a case ID: it becomes part of the episode's
// workflow ID and its CaseId search attribute, which Temporal sends in gRPC
// headers, and a header holds printable ASCII only: a case ID of other
// characters used to wedge its stream for good.
func ValidateCaseID(id string) error {
	switch {
	case id == "":
		return fmt.Errorf("the case ID is empty: %s", caseIDWant)
	case len(id) > MaxCaseIDLength:
		return fmt.Errorf("case ID %.40q... has %d bytes: %s", id, len(id), caseIDWant)
	}
	for i, r := range id {
		ok := r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-:", r))
		if !ok {
			return fmt.Errorf("case ID %q holds %q at byte %d: %s", id, r, i+1, caseIDWant)
		}
	}
	return nil
}

// checkSizes refuses a case with a text longer than MaxTextBytes or a list
// longer than MaxItems, naming the field; the whole case's size is checked
// where it is read or written as JSON (checkCaseBytes).
func checkSizes(c *clinic.Case) error {
	return walkSizes(reflect.ValueOf(c).Elem(), "")
}

func walkSizes(v reflect.Value, path string) error {
	switch v.Kind() {
	case reflect.String:
		if n := v.Len(); n > MaxTextBytes {
			return FieldError{path, fmt.Sprintf("%d bytes of text; a text of a case takes at most %d (64 KiB)", n, MaxTextBytes)}
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return nil // raw JSON of a benchmark's member: bounded by the case's size
		}
		if n := v.Len(); n > MaxItems {
			return FieldError{path, fmt.Sprintf("%d items; a list of a case takes at most %d", n, MaxItems)}
		}
		for i := range v.Len() {
			if err := walkSizes(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Pointer:
		if !v.IsNil() {
			return walkSizes(v.Elem(), path)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" || !f.IsExported() {
				continue
			}
			if err := walkSizes(v.Field(i), strings.TrimPrefix(path+"."+name, ".")); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkCaseBytes refuses a case of more than MaxCaseBytes of JSON.
func checkCaseBytes(n int) error {
	if n > MaxCaseBytes {
		return fmt.Errorf("the case is %d bytes of JSON; a case takes at most %d (512 KiB)", n, MaxCaseBytes)
	}
	return nil
}

// CheckText refuses data that is not UTF-8 text as a corpus file must be:
// a byte-order mark at its start, or a byte that is not UTF-8, named by
// line and byte offset (json would replace it with U+FFFD in silence).
func CheckText(data []byte, name string) error {
	if bytes.HasPrefix(data, jsonl.BOM) {
		return fmt.Errorf("%s:1: %w", name, errBOM)
	}
	off, bad, ok := jsonl.CheckUTF8(data)
	if ok {
		return nil
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(data[:off], '\n')
	return fmt.Errorf("%s:%d: byte %d of the line (0x%02X, byte offset %d) is not UTF-8: the file must be UTF-8 text", name, line, col, bad, off)
}

var errBOM = errors.New("the file starts with a UTF-8 byte-order mark (EF BB BF): save it as UTF-8 without one")

// checkLine is CheckText for one line of a JSON Lines file, whose reader
// names the file and the line.
func checkLine(raw []byte, line int) error {
	if line == 1 && bytes.HasPrefix(raw, jsonl.BOM) {
		return errBOM
	}
	if off, bad, ok := jsonl.CheckUTF8(raw); !ok {
		return fmt.Errorf("byte %d of the line (0x%02X, byte offset %d) is not UTF-8: the file must be UTF-8 text", off+1, bad, off)
	}
	return nil
}

// ReadWhole reads a file an importer takes whole (a JSON array of cases),
// at most MaxFileBytes of it (ReadBounded), and checks that it is UTF-8
// text (CheckText).
func ReadWhole(r io.Reader, name string) ([]byte, error) {
	data, err := ReadBounded(r, name)
	if err != nil {
		return nil, err
	}
	return data, CheckText(data, name)
}

// ReadBounded reads a file an importer takes whole, text or binary (a
// parquet file), refusing one past MaxFileBytes rather than filling the
// memory with it.
func ReadBounded(r io.Reader, name string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: read: %w", name, err)
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("%s: the file is longer than %d bytes (256 MiB), the most an importer reads: split it", name, MaxFileBytes)
	}
	return data, nil
}

// readLines calls fn with each line of a JSON Lines file that is not blank
// (its number and its bytes, trimmed), after checking that it is UTF-8 text
// no longer than MaxCaseBytes; errors name the file and the line.
func readLines(r io.Reader, name string, fn func(line int, raw []byte) error) error {
	return jsonl.ReadLimit(r, name, MaxCaseBytes, func(line int, raw []byte) error {
		if err := checkLine(raw, line); err != nil {
			return err
		}
		return fn(line, raw)
	})
}
