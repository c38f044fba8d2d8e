// Package sandbox is KlinikeBench's clinical tool sandbox (§2.2 and appendix
// B): a registry of tools, each with a JSON-schema argument definition, and
// handlers that read a task's data (the chart, the examination findings, the
// test results of the case) and never invent any. A call whose arguments
// break the schema is refused with the schema error, which goes back to the
// agent; it never ends or breaks an episode.
package sandbox

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/clinevo/clinevo/catalog"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/textmatch"
)

// Kind groups tools by what they do.
type Kind string

// Tool kinds.
const (
	KindRecord Kind = "record" // read the chart
	KindExam   Kind = "exam"   // examine a body system
	KindOrder  Kind = "order"  // order a test or a study and read its result
	KindAction Kind = "action" // a state update: prescription, referral, admission, plan, differential
	KindFinal  Kind = "final"  // record the diagnosis: ends the encounter
	// KindKnowledge tools query clinical knowledge; as in the paper's headless
	// runtime (appendix B, Table 5) they answer not available.
	KindKnowledge Kind = "knowledge"
	KindMemory    Kind = "memory" // encounter notes and interim hypotheses
)

// RecordDiagnosis is the tool that ends an encounter (KlinikeBench §2.2).
const RecordDiagnosis = "record_diagnosis"

// Tool is one registered tool.
type Tool struct {
	Name        string          `json:"name"`
	Kind        Kind            `json:"kind"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	// AliasOf names the built-in tool an alias delegates to (KlinikeBench
	// appendix B, Table 5: aliases run the built-in handler and keep their
	// own name in the trace); the alias takes its kind, description and
	// schema. Empty for a tool of its own.
	AliasOf string `json:"alias_of,omitempty"`
	// Study is the catalog test a named diagnostic study returns the case's
	// result of (appendix B.2: cached, case-specific findings); empty for
	// every other tool.
	Study  string `json:"-"`
	schema *jsonschema.Schema
}

// studySchema is the generic schema of the named diagnostic studies
// (appendix B.1: a patient identifier and further descriptive arguments;
// here an indication and notes, every one optional).
const studySchema = `{"type":"object","properties":{"patient_id":{"type":"string"},"indication":{"type":"string"},"notes":{"type":"string"}},"additionalProperties":false}`

// StudyName is the tool name of a catalog test's named study: its words
// capitalised and joined by underscores, abbreviations in capitals
// ("Complete_Blood_Count", "CT_Head").
func StudyName(test string) string {
	words := strings.Fields(test)
	for i, w := range words {
		switch {
		case len(w) == 1 || strings.ContainsAny(w, "0123456789") || (len(w) <= 3 && !strings.ContainsAny(w, "aeiou")) || w == "mri" || w == "sti":
			words[i] = strings.ToUpper(w)
		default:
			words[i] = strings.ToUpper(w[:1]) + w[1:]
		}
	}
	return strings.Join(words, "_")
}

// withStudies appends one named diagnostic study per billable catalog test
// (KlinikeBench appendix B: 101 named studies there, one per catalog test here).
func withStudies(tools []Tool) []Tool {
	for _, it := range catalog.Default().Items() {
		if it.Free() {
			continue
		}
		tools = append(tools, Tool{Name: StudyName(it.Name), Kind: KindOrder, Study: it.Name, Parameters: json.RawMessage(studySchema),
			Description: "Named diagnostic study: return this patient's " + it.Name + " result, if the case has one."})
	}
	return tools
}

//go:embed tools.json
var toolsJSON []byte

var registry, byName = load()

// load reads and compiles the embedded tool table. The table is fixed data
// of the binary: a broken entry is a programming error that the package's
// tests catch, so it panics rather than return an error no caller could handle.
func load() ([]Tool, map[string]int) {
	var tools []Tool
	if err := json.Unmarshal(toolsJSON, &tools); err != nil {
		panic(fmt.Sprintf("sandbox: tools.json: %v", err))
	}
	own := map[string]Tool{}
	for _, t := range tools {
		if t.AliasOf == "" {
			own[t.Name] = t
		}
	}
	for i, t := range tools {
		if t.AliasOf == "" {
			continue
		}
		target, ok := own[t.AliasOf]
		if !ok {
			panic(fmt.Sprintf("sandbox: alias %s of unknown tool %s", t.Name, t.AliasOf))
		}
		tools[i].Kind, tools[i].Parameters = target.Kind, target.Parameters
		tools[i].Description = target.Description + " (another name for " + target.Name + ".)"
	}
	tools = withStudies(tools)
	idx := map[string]int{}
	c := jsonschema.NewCompiler()
	for i := range tools {
		t := &tools[i]
		var compact bytes.Buffer
		if err := json.Compact(&compact, t.Parameters); err != nil {
			panic(fmt.Sprintf("sandbox: tool %s: parameters: %v", t.Name, err))
		}
		t.Parameters = compact.Bytes() // as the doctor sees them, in prompts and function definitions
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(t.Parameters))
		if err != nil {
			panic(fmt.Sprintf("sandbox: tool %s: parameters: %v", t.Name, err))
		}
		url := "tool:///" + t.Name + ".json"
		if err := c.AddResource(url, doc); err != nil {
			panic(fmt.Sprintf("sandbox: tool %s: %v", t.Name, err))
		}
		if t.schema, err = c.Compile(url); err != nil {
			panic(fmt.Sprintf("sandbox: tool %s: schema: %v", t.Name, err))
		}
		if _, dup := idx[t.Name]; dup {
			panic(fmt.Sprintf("sandbox: tool %s listed twice", t.Name))
		}
		idx[t.Name] = i
	}
	return tools, idx
}

// Registry lists every tool in table order.
func Registry() []Tool { return append([]Tool(nil), registry...) }

// Names lists every tool name in table order.
func Names() []string {
	out := make([]string, len(registry))
	for i, t := range registry {
		out[i] = t.Name
	}
	return out
}

// Lookup returns a registered tool by name.
func Lookup(name string) (Tool, bool) {
	i, ok := byName[name]
	if !ok {
		return Tool{}, false
	}
	return registry[i], true
}

// Arguments are a call's arguments after validation.
type Arguments map[string]any

// Text returns an argument as text: strings as they are, lists joined by
// "; ", anything else as JSON; "" when absent.
func (a Arguments) Text(key string) string {
	switch v := a[key].(type) {
	case nil:
		return ""
	case string:
		return strings.TrimSpace(v)
	case []any:
		parts := make([]string, 0, len(v))
		for _, x := range v {
			parts = append(parts, fmt.Sprint(x))
		}
		return strings.Join(parts, "; ")
	default:
		b, _ := json.Marshal(v) // a value decoded from JSON marshals back
		return string(b)
	}
}

// Canonical is the arguments' compact JSON with keys in order, as the trace keeps them.
func (a Arguments) Canonical() json.RawMessage {
	b, _ := json.Marshal(map[string]any(a)) // a value decoded from JSON marshals back; maps marshal with sorted keys
	return b
}

// Strings are the arguments as text by name, what constraints compare.
func (a Arguments) Strings() map[string]string {
	out := make(map[string]string, len(a))
	for k := range a {
		out[k] = a.Text(k)
	}
	return out
}

// Validate checks raw arguments against the tool's schema. The error says
// what is wrong in words the agent can act on; it is returned to the agent.
// Absent or null arguments are an empty object.
func (t Tool) Validate(raw json.RawMessage) (Arguments, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}")
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("arguments of %s are not valid JSON: %v", t.Name, err)
	}
	obj, ok := inst.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("arguments of %s must be a JSON object", t.Name)
	}
	if err := t.schema.Validate(inst); err != nil {
		return nil, fmt.Errorf("arguments of %s do not match its schema: %s", t.Name, describe(err))
	}
	return Arguments(obj), nil
}

// printer renders schema errors in English.
var printer = message.NewPrinter(language.English)

// describe flattens a schema validation error into "at /x: problem; at /y: problem".
func describe(err error) string {
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return err.Error()
	}
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			loc := "/" + strings.Join(e.InstanceLocation, "/")
			out = append(out, "at "+loc+": "+e.ErrorKind.LocalizedString(printer))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.Strings(out)
	return strings.Join(out, "; ")
}

// Record is the patient's chart as the record tools return it. An empty list
// reads as nothing recorded: the tools never make an entry up.
type Record struct {
	Allergies   []string `json:"allergies,omitempty"`
	Medications []string `json:"medications,omitempty"`
	History     []string `json:"history,omitempty"`
}

// Result is what a call returned.
type Result struct {
	Status clinic.Status
	Text   string
	Cost   float64             // the catalog price of an ordered test or study
	Final  *clinic.FinalOutput // record_diagnosis
}

// Execute runs a validated call against the case and its chart rec. The
// exam service resolves a laboratory test's name against the case catalog (a
// model matcher may be configured); results come from the case alone. Errors
// are the exam service's transient faults.
func Execute(ctx context.Context, c *clinic.Case, rec Record, exam episode.ExamService, prices map[string]float64, t Tool, a Arguments) (Result, error) {
	returned := func(text string) (Result, error) { return Result{Status: clinic.StatusReturned, Text: text}, nil }
	missing := func(text string) (Result, error) { return Result{Status: clinic.StatusUnavailable, Text: text}, nil }
	if t.Study != "" {
		it, _ := catalog.Default().Lookup(t.Study)
		return result(c, it, prices)
	}
	if t.Kind == KindKnowledge {
		return missing("not_available: knowledge queries are not served in this runtime")
	}
	name := t.Name
	if t.AliasOf != "" {
		name = t.AliasOf // the handler of the built-in; the trace keeps the invoked name
	}
	switch name {
	case "get_patient_info":
		d := c.Patient.Demographics
		var parts []string
		if d.Age > 0 {
			parts = append(parts, fmt.Sprintf("age %d", d.Age))
		}
		if d.Sex != "" {
			parts = append(parts, "sex "+d.Sex)
		}
		if d.Text != "" {
			parts = append(parts, d.Text)
		}
		if len(parts) == 0 {
			return missing("no demographics are recorded")
		}
		return returned(strings.Join(parts, "; "))
	case "get_patient_history":
		return returned(listed("past medical history", rec.History))
	case "get_patient_allergies":
		return returned(listed("drug allergies", rec.Allergies))
	case "get_patient_medications":
		return returned(listed("regular medicines", rec.Medications))
	case "get_patient_vitals":
		for _, f := range c.Exam.Findings {
			if f.System == "vitals" {
				return returned(f.Text)
			}
		}
		return missing("no vital signs are recorded for this visit")
	case "examine_patient":
		sys := a.Text("system")
		for _, f := range c.Exam.Findings {
			if f.System == sys {
				return returned(f.Text)
			}
		}
		// The convention of the exam service (episode): a system the case
		// records nothing on examines normal.
		return returned("No abnormality recorded on " + catalog.ExamItemName(sys) + ".")
	case "order_lab_test":
		name := a.Text("test_name")
		it, m, err := exam.Resolve(ctx, name, episode.CaseCatalog(c))
		if err != nil {
			return Result{}, fmt.Errorf("exam service: %w", err)
		}
		switch _, imaging := catalog.ImagingOf(it.Name); {
		case m == catalog.MatchNone:
			return missing(fmt.Sprintf("no test called %q is known", name))
		case it.Free():
			return missing(fmt.Sprintf("%s is a physical examination: use examine_patient", it.Name))
		case imaging:
			return missing(fmt.Sprintf("%s is an imaging study: use order_imaging", it.Name))
		}
		return result(c, it, prices)
	case "order_imaging":
		st, ok := catalog.Imaging(a.Text("modality"), a.Text("region"))
		if !ok {
			return missing(fmt.Sprintf("no %s study of the %s is available", a.Text("modality"), a.Text("region")))
		}
		it, _ := catalog.Default().Lookup(st.Name)
		return result(c, it, prices)
	case "prescribe_medication":
		return returned(fmt.Sprintf("Prescription recorded: %s, %s, %s.", a.Text("drug"), a.Text("dose"), a.Text("route")))
	case "refer_to_specialist":
		return returned(fmt.Sprintf("Referral recorded: %s, %s.", a.Text("specialty"), a.Text("urgency")))
	case "admit_to_hospital":
		return returned("Admission recorded: " + a.Text("reason") + ".")
	case "create_follow_up_plan":
		text := "Follow-up plan recorded: " + a.Text("plan")
		if iv := a.Text("interval"); iv != "" {
			text += " (" + iv + ")"
		}
		return returned(text + ".")
	case "record_differential":
		return returned("Differential recorded: " + a.Text("diagnoses") + ".")
	case "get_family_history":
		// Appendix B.2: some history fields use default entries; the chart keeps no family history.
		return returned("No family history recorded (default entry).")
	case "get_lab_results":
		return missing("not_available: results come back with each order_lab_test call")
	case "check_drug_interactions":
		return returned("Mock interaction database: no interaction listed for " + a.Text("drug_names") + " (a mocked response, not a clinical check).")
	case "take_note":
		return returned("Note stored.")
	case "set_working_diagnosis":
		return returned("Working diagnosis stored: " + a.Text("diagnosis") + ".")
	case "summarize_history_taken":
		return returned("The questions asked so far are in the encounter transcript.")
	case "request_consultation":
		return returned("Consultation request recorded: " + a.Text("specialty") + ".")
	case "schedule_procedure":
		return returned("Procedure booked: " + a.Text("procedure") + ".")
	case "provide_patient_education":
		return returned("Advice recorded: " + a.Text("topic") + ".")
	case "record_safety_net_advice":
		return returned("Safety-net advice recorded: " + a.Text("advice") + ".")
	case RecordDiagnosis:
		f := &clinic.FinalOutput{Diagnosis: []string{a.Text("diagnosis")}}
		if r := a.Text("reasoning"); r != "" {
			f.Evidence = []string{r}
		}
		return Result{Status: clinic.StatusFinalized, Text: "Diagnosis recorded: " + a.Text("diagnosis") + ".", Final: f}, nil
	}
	return Result{}, fmt.Errorf("sandbox: tool %s has no handler", t.Name)
}

// result is the case's result of a catalog test, priced; unavailable when
// the case records none.
func result(c *clinic.Case, it catalog.Item, prices map[string]float64) (Result, error) {
	for _, tv := range c.Exam.Tests {
		if tv.Name == it.Name {
			return Result{Status: clinic.StatusReturned, Text: it.Name + ": " + tv.Result, Cost: catalog.Price(it, prices)}, nil
		}
	}
	return Result{Status: clinic.StatusUnavailable, Text: fmt.Sprintf("no %s result is recorded for this patient", it.Name)}, nil
}

func listed(what string, items []string) string {
	if len(items) == 0 {
		return "No " + what + " recorded."
	}
	return strings.Join(items, "; ")
}

// ValueMatches reports whether an argument value meets a constraint's value:
// every content word of want is in got, after normalisation (so "abdomen"
// meets "abdomen and pelvis", "CT" meets "ct"); a value of stop words only
// must equal after normalisation.
func ValueMatches(want, got string) bool {
	w := textmatch.Set(want)
	if len(w) == 0 {
		return textmatch.Normalize(want) == textmatch.Normalize(got)
	}
	return textmatch.Subset(w, textmatch.Set(got))
}

// Meets reports whether a call's arguments hold every value of a constraint.
func Meets(want map[string]string, got map[string]string) bool {
	for k, v := range want {
		if !ValueMatches(v, got[k]) {
			return false
		}
	}
	return true
}

// Property reports whether the tool takes an argument of that name, and the
// values its schema allows (nil: any value of its type).
func (t Tool) Property(name string) (enum []string, ok bool) {
	var p struct {
		Properties map[string]struct {
			Enum []string `json:"enum"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(t.Parameters, &p); err != nil {
		return nil, false // the embedded schemas compiled at load, so they unmarshal
	}
	prop, ok := p.Properties[name]
	return prop.Enum, ok
}
