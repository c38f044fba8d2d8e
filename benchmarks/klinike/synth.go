package klinike

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/clinevo/clinevo/benchmarks/klinike/sandbox"
	"github.com/clinevo/clinevo/catalog"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus/synth"
)

// KlinikeBench-style tasks (KlinikeBench §2.1–2.2): each is a version 2 case
// of the synthetic condition table (synth.Generator) with the task parts added: explicitly absent
// findings Φ⁻ (the condition's pertinent negatives the case holds), a chart,
// a tool sandbox (required tools plus optional ones, some tasks forbidding
// one), argument-level action constraints and must-ask topics.
const (
	SourceTasks = "clinevo-synth/klinike-1"
	// Instances is the number of tasks per condition: 46 × 5 = 230
	// (clinevo's choice: every condition five times).
	Instances = 5
	// TestSize is the held-out test split, drawn by the seed (as
	// KlinikeBench appendix C draws its 50 test tasks with a fixed seed; 40
	// of 230 is clinevo's choice, near the paper's share of 50 of 333).
	TestSize = 40
)

// Split names: the whole task set, and its fixed train/test split.
const (
	SplitAll   = "klinike"
	SplitTrain = "klinike-train"
	SplitTest  = "klinike-test"
)

// Splits names the KlinikeBench-style splits.
var Splits = []string{SplitAll, SplitTrain, SplitTest}

// treatment is a condition's first-line prescription, "drug|dose|route".
var treatment = map[string]string{
	"stable_angina":            "glyceryl trinitrate|400 micrograms when needed|sublingual",
	"gerd":                     "omeprazole|20 mg once daily|oral",
	"costochondritis":          "ibuprofen|400 mg three times a day|oral",
	"pericarditis":             "ibuprofen|600 mg three times a day|oral",
	"migraine":                 "sumatriptan|50 mg at the start of an attack|oral",
	"tension_headache":         "paracetamol|1 g up to four times a day|oral",
	"cystitis":                 "nitrofurantoin|100 mg twice a day for 3 days|oral",
	"pyelonephritis":           "cefalexin|500 mg twice a day for 7 days|oral",
	"renal_colic":              "diclofenac|75 mg once|intramuscular",
	"bph":                      "tamsulosin|400 micrograms once daily|oral",
	"asthma":                   "salbutamol|two puffs when needed|inhaled",
	"copd":                     "tiotropium|one inhalation once daily|inhaled",
	"pneumonia":                "amoxicillin|500 mg three times a day for 5 days|oral",
	"strep_pharyngitis":        "phenoxymethylpenicillin|500 mg four times a day for 10 days|oral",
	"mono":                     "paracetamol|1 g up to four times a day|oral",
	"otitis_media":             "paracetamol|weight-based dose up to four times a day|oral",
	"sinusitis":                "paracetamol|1 g up to four times a day|oral",
	"gastroenteritis":          "oral rehydration salts|one sachet after each loose stool|oral",
	"biliary_colic":            "diclofenac|75 mg once|intramuscular",
	"peptic_ulcer":             "omeprazole|20 mg twice a day|oral",
	"mechanical_back_pain":     "ibuprofen|400 mg three times a day|oral",
	"sciatica":                 "naproxen|500 mg twice a day|oral",
	"knee_oa":                  "diclofenac gel|apply three times a day|topical",
	"gout":                     "colchicine|500 micrograms two to four times a day|oral",
	"hypertension":             "amlodipine|5 mg once daily|oral",
	"atrial_fibrillation":      "bisoprolol|2.5 mg once daily|oral",
	"dvt":                      "apixaban|10 mg twice a day for 7 days|oral",
	"t2dm":                     "metformin|500 mg once daily with food|oral",
	"hypothyroidism":           "levothyroxine|50 micrograms once daily|oral",
	"hyperthyroidism":          "propranolol|40 mg three times a day|oral",
	"iron_deficiency":          "ferrous sulfate|200 mg once daily|oral",
	"depression":               "sertraline|50 mg once daily|oral",
	"gad":                      "sertraline|50 mg once daily|oral",
	"panic_disorder":           "sertraline|50 mg once daily|oral",
	"cellulitis":               "flucloxacillin|500 mg four times a day for 7 days|oral",
	"eczema":                   "emollient|apply liberally twice a day|topical",
	"shingles":                 "aciclovir|800 mg five times a day for 7 days|oral",
	"bacterial_conjunctivitis": "chloramphenicol|one drop every two hours|eye drops",
	"allergic_conjunctivitis":  "sodium cromoglicate|one drop four times a day|eye drops",
	"bacterial_vaginosis":      "metronidazole|400 mg twice a day for 7 days|oral",
	"vulvovaginal_candidiasis": "clotrimazole|500 mg pessary once|vaginal",
}

// contraindicated are drugs a condition's task must never see prescribed:
// the condition table's unsafe management, said as a drug.
var contraindicated = map[string][]string{
	"costochondritis":          {"warfarin"},
	"pericarditis":             {"warfarin"},
	"migraine":                 {"codeine"},
	"tension_headache":         {"codeine"},
	"sah":                      {"aspirin"},
	"pyelonephritis":           {"nitrofurantoin"},
	"asthma":                   {"propranolol"},
	"acute_bronchitis":         {"amoxicillin"},
	"strep_pharyngitis":        {"amoxicillin"},
	"mono":                     {"amoxicillin"},
	"gastroenteritis":          {"loperamide"},
	"peptic_ulcer":             {"ibuprofen"},
	"gout":                     {"allopurinol", "aspirin"},
	"atrial_fibrillation":      {"aspirin"},
	"hyperthyroidism":          {"levothyroxine"},
	"gad":                      {"diazepam"},
	"panic_disorder":           {"diazepam"},
	"bacterial_vaginosis":      {"clotrimazole"},
	"vulvovaginal_candidiasis": {"metronidazole"},
}

// penicillins are the penicillin-class drugs of the table; a patient allergic
// to penicillin gets the alternative and a never-constraint on the usual one.
var penicillins = []string{"amoxicillin", "phenoxymethylpenicillin", "flucloxacillin"}

const penicillinAlternative = "clarithromycin|500 mg twice a day|oral"

// Tasks generates the KlinikeBench-style tasks for a seed: every condition
// Instances times, ordered in whole permutations of the table (so a stream
// in stages of one permutation meets every condition once a stage), and the
// fixed train/test split of that seed.
func Tasks(seed uint64) map[string][]clinic.Case {
	g := synth.NewGenerator(seed)
	rows := len(synth.Conditions())
	var all []clinic.Case
	for block := range Instances {
		for _, ci := range g.Order(SplitAll, block, rows) {
			n := len(all) + 1
			c := task(g, ci, n, v2Build)
			all = append(all, c)
		}
	}
	test := map[string]bool{}
	for _, i := range g.Rand("klinike-split").Perm(len(all))[:TestSize] {
		test[all[i].ID] = true
	}
	out := map[string][]clinic.Case{SplitAll: all}
	for _, c := range all {
		split := SplitTrain
		if test[c.ID] {
			split = SplitTest
		}
		c.Meta.Split = split
		out[split] = append(out[split], c)
	}
	return out
}

// build is what differs between the task set versions: the instance name
// the base case and the task draws are keyed by, the provenance source, the
// tools a task may expose beside the required ones and record_diagnosis, and
// the most of them one task exposes.
type build struct {
	instance, source string
	tools            []string
	maxOptional      int
}

// v2Build is the task set of generator version 2, which never changes: its
// tools are the 14 the registry held when it was released.
var v2Build = build{instance: "klinike", source: SourceTasks, maxOptional: 4, tools: []string{
	"get_patient_info", "get_patient_history", "get_patient_allergies", "get_patient_medications", "get_patient_vitals",
	"examine_patient", "order_lab_test", "order_imaging", "prescribe_medication", "refer_to_specialist",
	"admit_to_hospital", "create_follow_up_plan", "record_differential", sandbox.RecordDiagnosis}}

// task builds task n of table row i.
func task(g synth.Generator, i, n int, b build) clinic.Case {
	cd := synth.RowOf(i)
	split := SplitAll
	if b.instance != v2Build.instance {
		split = b.instance
	}
	c, refs := g.RowCase(i, split, n)
	r := g.Rand(b.instance, strconv.Itoa(n), cd.Key) // the task parts' own draws: the base case stays version 2's
	c.ID = fmt.Sprintf("klinike-%04d", n)
	c.Meta = clinic.CaseMeta{Split: SplitAll}
	c.Provenance = clinic.Provenance{Source: b.source, SourceCaseID: fmt.Sprintf("%s/%s/%d", cd.Key, b.instance, n)}

	// Φ⁻: the pertinent negatives this case holds, which the patient denies.
	for i := range cd.Negatives {
		if id, ok := refs["n"+strconv.Itoa(i)]; ok {
			for j := range c.Patient.Facts {
				if c.Patient.Facts[j].ID == id {
					c.Patient.Facts[j].Absent = true
				}
			}
		}
	}
	rec := chartOf(c.Patient.Facts)
	allergic := slices.ContainsFunc(rec.Allergies, func(a string) bool { return strings.Contains(strings.ToLower(a), "penicillin") })

	key := &ToolKey{}
	must := func(tool string, args map[string]string, reason string) {
		key.Constraints = append(key.Constraints, ActionConstraint{Tool: tool, Rule: RuleMust, Arguments: args, Reason: reason})
	}
	never := func(tool string, args map[string]string, reason string) {
		key.Constraints = append(key.Constraints, ActionConstraint{Tool: tool, Rule: RuleNever, Arguments: args, Reason: reason})
	}
	key.Required = []string{"get_patient_info", "get_patient_vitals"}
	if sys := examSystem(cd, &c); sys != "" {
		key.Required = append(key.Required, "examine_patient")
		must("examine_patient", map[string]string{"system": sys}, "the examination that shows the key sign")
	}
	if lab := keyTest(cd, &c, false); lab != "" {
		key.Required = append(key.Required, "order_lab_test")
		must("order_lab_test", map[string]string{"test_name": lab}, "the test that confirms the diagnosis")
	}
	if img := keyTest(cd, &c, true); img != "" {
		st, _ := catalog.ImagingOf(img)
		key.Required = append(key.Required, "order_imaging")
		must("order_imaging", map[string]string{"modality": st.Modality, "region": st.Region}, "the imaging that confirms the diagnosis")
	}
	if rx, ok := treatment[cd.Key]; ok {
		drug, _, route := split3(rx)
		if allergic && slices.Contains(penicillins, drug) {
			never("prescribe_medication", map[string]string{"drug": drug}, "the patient is allergic to penicillin")
			drug, _, route = split3(penicillinAlternative)
		}
		key.Required = append(key.Required, "get_patient_allergies", "prescribe_medication")
		must("prescribe_medication", map[string]string{"drug": drug, "route": route}, "first-line treatment")
		if !slices.Contains(c.Manager.MustAsk, clinic.TopicAllergies) {
			c.Manager.MustAsk = append(c.Manager.MustAsk, clinic.TopicAllergies) // ask before prescribing
		}
	}
	for _, d := range contraindicated[cd.Key] {
		never("prescribe_medication", map[string]string{"drug": d}, "contraindicated in this condition")
	}
	emergency := false
	if cd.Referral != "" {
		dest, urg := cd.Referral, cd.Urgency
		key.Required = append(key.Required, "refer_to_specialist")
		must("refer_to_specialist", map[string]string{"specialty": dest, "urgency": urg}, "the referral this condition needs")
		if urg == "emergency" {
			emergency = true
			key.Required = append(key.Required, "admit_to_hospital")
		}
	}

	// Exposed: the required tools, record_diagnosis and one to four others;
	// a non-emergency task forbids admission now and then.
	sb := &Sandbox{Record: rec}
	var optional []string
	for _, t := range b.tools {
		if !slices.Contains(key.Required, t) && t != sandbox.RecordDiagnosis {
			optional = append(optional, t)
		}
	}
	if !emergency && r.Float64() < 0.3 {
		sb.Forbidden = []string{"admit_to_hospital"}
		optional = slices.DeleteFunc(optional, func(t string) bool { return t == "admit_to_hospital" })
	}
	r.Shuffle(len(optional), func(i, j int) { optional[i], optional[j] = optional[j], optional[i] })
	exposed := append(append([]string(nil), key.Required...), optional[:min(len(optional), 1+r.IntN(b.maxOptional))]...)
	exposed = append(exposed, sandbox.RecordDiagnosis)
	for _, t := range b.tools { // registry order
		if slices.Contains(exposed, t) {
			sb.Tools = append(sb.Tools, t)
		}
	}
	SetTask(&c, sb, key)
	return c
}

// examSystem is the system of the condition's first examination finding
// (vitals aside) that the case holds.
func examSystem(cd synth.Row, c *clinic.Case) string {
	for _, sys := range cd.Exams {
		if sys == "vitals" {
			continue
		}
		for _, f := range c.Exam.Findings {
			if f.System == sys {
				return sys
			}
		}
	}
	return ""
}

// keyTest is the condition's first listed test (imaging or not, as asked)
// whose result in this case is abnormal: the test that confirms it.
func keyTest(cd synth.Row, c *clinic.Case, imaging bool) string {
	for _, name := range cd.Tests {
		if _, isImaging := catalog.ImagingOf(name); isImaging != imaging {
			continue
		}
		for _, tv := range c.Exam.Tests {
			if tv.Name == name && tv.Abnormal {
				return name
			}
		}
	}
	return ""
}

// chartOf is the chart the record tools read: what the patient's history says
// about allergies, medicines and past illness, without the plain denials.
func chartOf(facts []clinic.Fact) sandbox.Record {
	var rec sandbox.Record
	for _, f := range facts {
		if f.Absent || denial(f.Text) {
			continue
		}
		text := strings.TrimSuffix(strings.TrimSpace(f.Text), ".")
		for _, t := range f.Topics {
			switch t {
			case clinic.TopicAllergies:
				rec.Allergies = append(rec.Allergies, text)
			case clinic.TopicMedications:
				rec.Medications = append(rec.Medications, text)
			case clinic.TopicPastHistory:
				rec.History = append(rec.History, text)
			}
		}
	}
	return rec
}

// denial recognises the routine answers that say there is nothing to record.
func denial(text string) bool {
	t := strings.ToLower(text)
	for _, p := range []string{"no allergies", "do not take", "don't take", "not on any", "no regular", "healthy", "nothing serious",
		"quite well", "nothing runs", "no illnesses", "both well"} {
		if strings.Contains(t, p) {
			return true
		}
	}
	return false
}

// split3 reads a table entry "drug|dose|route".
func split3(s string) (a, b, c string) {
	parts := strings.SplitN(s, "|", 3)
	for len(parts) < 3 {
		parts = append(parts, "")
	}
	return strings.TrimSpace(parts[0]), strings.TrimSpace(parts[1]), strings.TrimSpace(parts[2])
}
