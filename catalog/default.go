package catalog

// ExamSystems are the body systems a physical examination reports on, in order.
var ExamSystems = []string{"general", "vitals", "cardiovascular", "respiratory", "abdominal", "neurological",
	"musculoskeletal", "skin", "ent", "eye", "genitourinary", "mental state"}

// examAliases lets a doctor name a system the way clinicians do.
var examAliases = map[string][]string{
	"general":         {"general appearance", "general inspection"},
	"vitals":          {"vital signs", "observations", "obs", "blood pressure", "heart rate", "temperature", "pulse oximetry"},
	"cardiovascular":  {"cardiac examination", "heart examination", "cvs examination", "auscultate heart"},
	"respiratory":     {"chest examination", "lung examination", "pulmonary examination", "auscultate chest"},
	"abdominal":       {"abdomen examination", "abdominal palpation", "palpate abdomen"},
	"neurological":    {"neuro examination", "neurologic examination", "cranial nerves"},
	"musculoskeletal": {"joint examination", "msk examination", "extremities", "back examination", "limb examination"},
	"skin":            {"skin inspection", "dermatological examination", "rash examination"},
	"ent":             {"throat examination", "ear examination", "otoscopy", "ear nose throat examination"},
	"eye":             {"eye inspection", "fundoscopy", "ophthalmic examination"},
	"genitourinary":   {"pelvic examination", "gu examination", "genital examination"},
	"mental state":    {"mental status examination", "mse"},
}

// ExamItemName is the catalog name of one system's examination.
func ExamItemName(system string) string { return system + " examination" }

// Default returns the built-in catalog the synthetic corpus is written against.
// It is built once; a Catalog is never changed after New (Extend copies).
func Default() *Catalog { return builtin }

var builtin = buildDefault()

func buildDefault() *Catalog {
	items := []Item{{Name: PhysicalKey, Category: Exam, Aliases: []string{"examine", "examination", "full examination", "physical exam", "exam"}}}
	for _, s := range ExamSystems {
		items = append(items, Item{Name: ExamItemName(s), Category: Exam, Aliases: examAliases[s]})
	}
	items = append(items, []Item{
		{Name: "complete blood count", Category: CBC, Aliases: []string{"cbc", "fbc", "full blood count", "blood count", "hemogram"}, Normal: "Haemoglobin 13.8 g/dL, white cells 7.2 x10^9/L, platelets 250 x10^9/L; all within reference range."},
		{Name: "basic metabolic panel", Category: Chemistry, Aliases: []string{"bmp", "u&e", "urea and electrolytes", "electrolytes", "renal function", "kidney function", "u e", "chem 7"}, Normal: "Sodium 139, potassium 4.2, creatinine 0.9 mg/dL, urea normal; all within reference range."},
		{Name: "liver function tests", Category: Chemistry, Aliases: []string{"lft", "lfts", "liver panel", "liver enzymes"}, Normal: "ALT, AST, ALP and bilirubin within reference range."},
		{Name: "c reactive protein", Category: Chemistry, Aliases: []string{"crp", "inflammatory markers"}, Normal: "CRP 3 mg/L (normal)."},
		{Name: "erythrocyte sedimentation rate", Category: Chemistry, Aliases: []string{"esr", "sed rate"}, Normal: "ESR 10 mm/h (normal)."},
		{Name: "blood glucose", Category: Glucose, Aliases: []string{"glucose", "random glucose", "fasting glucose", "sugar", "blood sugar", "finger prick glucose"}, Normal: "Glucose 5.2 mmol/L (94 mg/dL), normal."},
		{Name: "hba1c", Category: Glucose, Aliases: []string{"glycated haemoglobin", "glycated hemoglobin", "a1c", "hemoglobin a1c"}, Normal: "HbA1c 5.3% (normal)."},
		{Name: "lipid panel", Category: Chemistry, Aliases: []string{"lipids", "cholesterol", "lipid profile"}, Normal: "Total cholesterol 4.8 mmol/L, LDL 2.9 mmol/L; acceptable."},
		{Name: "lipase", Category: Chemistry, Aliases: []string{"amylase", "pancreatic enzymes"}},
		{Name: "thyroid function tests", Category: Thyroid, Aliases: []string{"tsh", "thyroid", "tfts", "thyroid panel", "free t4"}, Normal: "TSH 1.8 mIU/L, free T4 15 pmol/L (normal)."},
		{Name: "troponin", Category: Troponin, Aliases: []string{"high sensitivity troponin", "hs troponin", "cardiac enzymes", "trop"}},
		{Name: "d dimer", Category: Chemistry, Aliases: []string{"ddimer"}},
		{Name: "ferritin", Category: Chemistry, Aliases: []string{"iron studies", "iron"}},
		{Name: "vitamin b12", Category: Chemistry, Aliases: []string{"b12", "folate"}},
		{Name: "urinalysis", Category: Urinalysis, Aliases: []string{"urine dipstick", "dipstick", "ua", "urine test", "urine analysis"}, Normal: "No blood, protein, leukocytes or nitrites."},
		{Name: "urine culture", Category: Urinalysis, Aliases: []string{"msu", "midstream urine", "urine microscopy and culture"}},
		{Name: "urine pregnancy test", Category: Rapid, Aliases: []string{"pregnancy test", "beta hcg", "hcg", "upt"}, Normal: "Negative."},
		{Name: "rapid strep test", Category: Rapid, Aliases: []string{"strep test", "rapid antigen detection test", "throat swab", "radt"}},
		{Name: "influenza rapid test", Category: Rapid, Aliases: []string{"flu test", "flu swab", "influenza test"}},
		{Name: "monospot", Category: Rapid, Aliases: []string{"mono test", "heterophile antibody", "ebv serology"}},
		{Name: "h pylori breath test", Category: Rapid, Aliases: []string{"urea breath test", "helicobacter test", "h pylori", "stool antigen"}},
		{Name: "stool culture", Category: Other, Aliases: []string{"stool test", "stool sample", "stool microscopy"}},
		{Name: "sti swab", Category: Other, Aliases: []string{"chlamydia test", "gonorrhoea test", "naat", "sti screen", "vaginal swab"}},
		{Name: "peak flow", Category: Rapid, Aliases: []string{"peak expiratory flow", "pefr"}},
		{Name: "ecg", Category: ECG, Aliases: []string{"ekg", "12 lead ecg", "electrocardiograph"}, Normal: "Sinus rhythm, 72/min, normal axis, no ST or T wave changes."},
		{Name: "chest x ray", Category: XRay, Aliases: []string{"cxr", "chest radiograph", "chest film"}},
		{Name: "abdominal x ray", Category: XRay, Aliases: []string{"axr", "abdominal radiograph"}},
		{Name: "joint x ray", Category: XRay, Aliases: []string{"knee x ray", "ankle x ray", "wrist x ray", "hand x ray", "shoulder x ray", "hip x ray", "limb x ray"}},
		{Name: "spine x ray", Category: XRay, Aliases: []string{"lumbar x ray", "back x ray", "lumbar spine x ray"}},
		{Name: "spirometry", Category: Spirometry, Aliases: []string{"pulmonary function tests", "pft", "lung function", "bronchodilator reversibility"}},
		{Name: "abdominal ultrasound", Category: Ultrasound, Aliases: []string{"ultrasound abdomen", "rUQ ultrasound", "ruq ultrasound", "liver ultrasound", "gallbladder ultrasound"}},
		{Name: "renal ultrasound", Category: Ultrasound, Aliases: []string{"kidney ultrasound", "ultrasound kidneys", "bladder ultrasound"}},
		{Name: "pelvic ultrasound", Category: Ultrasound, Aliases: []string{"transvaginal ultrasound", "tvus", "ultrasound pelvis"}},
		{Name: "echocardiogram", Category: Ultrasound, Aliases: []string{"echo", "cardiac ultrasound", "tte"}},
		{Name: "doppler ultrasound leg", Category: Ultrasound, Aliases: []string{"leg doppler", "venous doppler", "compression ultrasound", "dvt scan"}},
		{Name: "ct head", Category: CT, Aliases: []string{"head ct", "ct brain", "brain ct", "non contrast ct head"}},
		{Name: "ct abdomen", Category: CT, Aliases: []string{"ct kub", "ct abdomen pelvis", "abdominal ct", "ct urogram"}},
		{Name: "ct chest", Category: CT, Aliases: []string{"ct pulmonary angiogram", "ctpa", "chest ct"}},
		{Name: "mri brain", Category: MRI, Aliases: []string{"brain mri", "mri head", "head mri"}},
		{Name: "mri spine", Category: MRI, Aliases: []string{"lumbar mri", "spine mri", "mri lumbar spine"}},
		{Name: "mri knee", Category: MRI, Aliases: []string{"knee mri", "joint mri"}},
	}...)
	c, err := New(items)
	if err != nil {
		panic(err) // the built-in table is fixed; a clash is a programming error caught by tests
	}
	return c
}
