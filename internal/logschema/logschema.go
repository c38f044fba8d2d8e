// Package logschema checks the logs clinevo exports for other tools against
// the schemas those tools publish, pinned to a commit (testdata/README.md
// names them): inspect_ai's eval logs, .json and .eval, and Harbor's ATIF
// trajectories. Tests and CI use it; clinevo itself never links it.
package logschema

import (
	"archive/zip"
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

var (
	//go:embed testdata/inspect_eval_log.schema.json
	inspectSchema []byte
	//go:embed testdata/atif.schema.json
	atifSchema []byte
)

const (
	inspectURL = "inspect_eval_log.schema.json"
	atifURL    = "atif.schema.json"
)

var compiled = sync.OnceValues(func() (*jsonschema.Compiler, error) {
	c := jsonschema.NewCompiler()
	for url, raw := range map[string][]byte{inspectURL: inspectSchema, atifURL: atifSchema} {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("schema %s: %w", url, err)
		}
		if err := c.AddResource(url, doc); err != nil {
			return nil, fmt.Errorf("schema %s: %w", url, err)
		}
	}
	return c, nil
})

// Inspect is inspect's schema of def (EvalLog, EvalSample, EvalSpec, ...;
// "" for the EvalLog the document describes).
func Inspect(def string) (*jsonschema.Schema, error) {
	return compile(inspectURL, def)
}

// ATIF is Harbor's schema of a trajectory (Trajectory).
func ATIF() (*jsonschema.Schema, error) {
	return compile(atifURL, "")
}

func compile(url, def string) (*jsonschema.Schema, error) {
	c, err := compiled()
	if err != nil {
		return nil, err
	}
	if def != "" {
		url += "#/$defs/" + def
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", url, err)
	}
	return s, nil
}

// Validate checks JSON document b against s.
func Validate(s *jsonschema.Schema, b []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return err
	}
	return s.Validate(v)
}

// validateAs checks b against inspect's def, the error naming what.
func validateAs(def, what string, b []byte) error {
	s, err := Inspect(def)
	if err != nil {
		return err
	}
	if err := Validate(s, b); err != nil {
		return fmt.Errorf("%s as %s: %w", what, def, err)
	}
	return nil
}

// InspectFile validates an inspect log, .json or .eval, and says how many
// samples it holds.
func InspectFile(path string) (int, error) {
	if strings.HasSuffix(path, ".eval") {
		return inspectEval(path)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	if err := validateAs("EvalLog", path, raw); err != nil {
		return 0, err
	}
	var l struct{ Samples []json.RawMessage }
	if err := json.Unmarshal(raw, &l); err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return len(l.Samples), nil
}

// inspectEval validates every entry of an .eval log against the schema of
// what the pinned inspect writes there (src/inspect_ai/log/_recorders/eval.py):
// the header an EvalLog without samples, each sample an EvalSample, the
// summaries EvalSampleSummary lists, the journalled start a LogStart (its
// eval an EvalSpec, its plan an EvalPlan). An entry inspect does not write
// is an error, as is a log without header or samples.
func inspectEval(path string) (int, error) {
	z, err := zip.OpenReader(path)
	if err != nil {
		return 0, err
	}
	defer z.Close()
	samples, header := 0, false
	for _, f := range z.File {
		raw, err := readAll(f)
		if err != nil {
			return 0, fmt.Errorf("%s: %s: %w", path, f.Name, err)
		}
		what := path + ": " + f.Name
		switch {
		case f.Name == "header.json":
			header = true
			err = headerValid(what, raw)
		case strings.HasPrefix(f.Name, "samples/") && strings.HasSuffix(f.Name, ".json"):
			samples++
			err = validateAs("EvalSample", what, raw)
		case f.Name == "summaries.json" || strings.HasPrefix(f.Name, "_journal/summaries/"):
			err = eachValid("EvalSampleSummary", what, raw)
		case f.Name == "_journal/start.json":
			err = startValid(what, raw)
		default:
			err = fmt.Errorf("%s: an entry inspect does not write", what)
		}
		if err != nil {
			return 0, err
		}
	}
	if !header || samples == 0 {
		return 0, fmt.Errorf("%s: header %v, %d samples: want a header and samples", path, header, samples)
	}
	return samples, nil
}

func readAll(f *zip.File) ([]byte, error) {
	r, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// headerValid: an EvalLog that holds no samples.
func headerValid(what string, raw []byte) error {
	var h map[string]json.RawMessage
	if err := json.Unmarshal(raw, &h); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if _, ok := h["samples"]; ok {
		return fmt.Errorf("%s: the header holds samples", what)
	}
	return validateAs("EvalLog", what, raw)
}

// eachValid: a JSON array each of whose items is a def.
func eachValid(def, what string, raw []byte) error {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return fmt.Errorf("%s: want a list: %w", what, err)
	}
	for i, it := range items {
		if err := validateAs(def, fmt.Sprintf("%s[%d]", what, i), it); err != nil {
			return err
		}
	}
	return nil
}

// startValid: inspect's LogStart, which its published schema leaves out:
// exactly a version, an EvalSpec and an EvalPlan.
func startValid(what string, raw []byte) error {
	var st map[string]json.RawMessage
	if err := json.Unmarshal(raw, &st); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	var version int
	if err := json.Unmarshal(st["version"], &version); err != nil || len(st) != 3 {
		return fmt.Errorf("%s: want exactly version (an integer), eval and plan, got %d fields", what, len(st))
	}
	if err := validateAs("EvalSpec", what+" eval", st["eval"]); err != nil {
		return err
	}
	return validateAs("EvalPlan", what+" plan", st["plan"])
}

// ATIFFile validates an ATIF trajectory against the schema and the two
// rules of Harbor's Trajectory model the schema cannot state: step IDs run
// 1, 2, 3, ... and an observation's source_call_id names a tool call of its
// own step. It says how many steps the trajectory has.
func ATIFFile(path string) (int, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	s, err := ATIF()
	if err != nil {
		return 0, err
	}
	if err := Validate(s, raw); err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	var t struct {
		Steps []struct {
			StepID      int        `json:"step_id"`
			ToolCalls   []toolCall `json:"tool_calls"`
			Observation *struct {
				Results []struct {
					SourceCallID *string `json:"source_call_id"`
				} `json:"results"`
			} `json:"observation"`
		} `json:"steps"`
	}
	if err := json.Unmarshal(raw, &t); err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	for i, st := range t.Steps {
		if st.StepID != i+1 {
			return 0, fmt.Errorf("%s: steps[%d].step_id: want %d (sequential from 1), got %d", path, i, i+1, st.StepID)
		}
		if st.Observation == nil {
			continue
		}
		for _, r := range st.Observation.Results {
			if r.SourceCallID != nil && !slices.Contains(st.ToolCalls, toolCall{ID: *r.SourceCallID}) {
				return 0, fmt.Errorf("%s: step %d: source_call_id %q names no tool call of the step", path, st.StepID, *r.SourceCallID)
			}
		}
	}
	return len(t.Steps), nil
}

type toolCall struct {
	ID string `json:"tool_call_id"`
}
