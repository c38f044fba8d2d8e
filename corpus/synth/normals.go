package synth

import (
	"fmt"
	"math/rand/v2"
)

// normalResults gives version 2 a normal result for every billable catalog
// test, with values drawn inside the reference range and wording that varies,
// so that whether a test returns a result, and how a normal result reads, says
// nothing about the diagnosis. Written for clinevo; ranges are adult reference
// ranges.
var normalResults = map[string]func(r *rand.Rand, sex string) string{
	"complete blood count": func(r *rand.Rand, sex string) string {
		hb := 13.4 + 2.6*r.Float64()
		if sex == "female" {
			hb = 12.2 + 2.4*r.Float64()
		}
		return pick(r,
			fmt.Sprintf("Haemoglobin %.1f g/dL, white cells %.1f x10^9/L, platelets %d x10^9/L; all within the reference range.", hb, 4.5+5*r.Float64(), 170+r.IntN(200)),
			fmt.Sprintf("Normal blood count: haemoglobin %.1f g/dL, white cells %.1f x10^9/L, platelets %d x10^9/L.", hb, 4.5+5*r.Float64(), 170+r.IntN(200)))
	},
	"basic metabolic panel": func(r *rand.Rand, _ string) string {
		return pick(r,
			fmt.Sprintf("Sodium %d mmol/L, potassium %.1f mmol/L, creatinine %.1f mg/dL; renal function normal.", 136+r.IntN(8), 3.7+r.Float64(), 0.7+0.4*r.Float64()),
			fmt.Sprintf("Electrolytes and renal function normal (sodium %d mmol/L, creatinine %.1f mg/dL).", 136+r.IntN(8), 0.7+0.4*r.Float64()))
	},
	"liver function tests": func(r *rand.Rand, _ string) string {
		return pick(r,
			fmt.Sprintf("ALT %d U/L, ALP %d U/L, bilirubin %d umol/L; liver function normal.", 12+r.IntN(24), 45+r.IntN(60), 5+r.IntN(12)),
			"ALT, AST, ALP and bilirubin all within the reference range.")
	},
	"c reactive protein": func(r *rand.Rand, _ string) string {
		return pick(r, fmt.Sprintf("CRP %d mg/L (normal).", 1+r.IntN(4)), "CRP below 5 mg/L, not raised.")
	},
	"erythrocyte sedimentation rate": func(r *rand.Rand, _ string) string {
		return fmt.Sprintf("ESR %d mm/h (normal).", 3+r.IntN(12))
	},
	"blood glucose": func(r *rand.Rand, _ string) string {
		return pick(r, fmt.Sprintf("Random glucose %.1f mmol/L, normal.", 4.4+2*r.Float64()), fmt.Sprintf("Glucose %.1f mmol/L (normal).", 4.4+2*r.Float64()))
	},
	"hba1c": func(r *rand.Rand, _ string) string {
		m := 31 + r.IntN(9)
		return fmt.Sprintf("HbA1c %d mmol/mol (%.1f%%), normal.", m, float64(m)/10.929+2.15)
	},
	"lipid panel": func(r *rand.Rand, _ string) string {
		return pick(r,
			fmt.Sprintf("Total cholesterol %.1f mmol/L, LDL %.1f mmol/L; acceptable.", 3.8+r.Float64(), 2.0+0.9*r.Float64()),
			fmt.Sprintf("Lipids acceptable: total cholesterol %.1f mmol/L, HDL %.1f mmol/L.", 3.8+r.Float64(), 1.1+0.6*r.Float64()))
	},
	"lipase": func(r *rand.Rand, _ string) string {
		return fmt.Sprintf("Lipase %d U/L, within the reference range.", 15+r.IntN(40))
	},
	"thyroid function tests": func(r *rand.Rand, _ string) string {
		return pick(r,
			fmt.Sprintf("TSH %.1f mIU/L, free T4 %d pmol/L; thyroid function normal.", 0.8+2.7*r.Float64(), 11+r.IntN(9)),
			fmt.Sprintf("Normal thyroid function: TSH %.1f mIU/L.", 0.8+2.7*r.Float64()))
	},
	"troponin": func(r *rand.Rand, _ string) string {
		return pick(r, fmt.Sprintf("High-sensitivity troponin %d ng/L, not raised.", 1+r.IntN(6)), "Troponin below the detection limit, not raised.")
	},
	"d dimer": func(r *rand.Rand, _ string) string {
		return fmt.Sprintf("D-dimer %d ng/mL, not raised.", 150+r.IntN(300))
	},
	"ferritin": func(r *rand.Rand, _ string) string {
		return fmt.Sprintf("Ferritin %d ug/L, within the reference range.", 40+r.IntN(140))
	},
	"vitamin b12": func(r *rand.Rand, _ string) string {
		return fmt.Sprintf("Vitamin B12 %d ng/L and folate %.1f ug/L, both normal.", 250+r.IntN(450), 4+8*r.Float64())
	},
	"urinalysis": func(r *rand.Rand, _ string) string {
		return pick(r, "No blood, protein, leukocytes or nitrites.", "Urine dipstick negative for blood, protein, leukocytes and nitrites.")
	},
	"urine culture": func(r *rand.Rand, _ string) string {
		return pick(r, "No significant growth.", "No significant bacterial growth.")
	},
	"urine pregnancy test": func(*rand.Rand, string) string { return "Negative." },
	"rapid strep test": func(r *rand.Rand, _ string) string {
		return pick(r, "Negative for group A streptococcus.", "Negative.")
	},
	"influenza rapid test": func(r *rand.Rand, _ string) string {
		return pick(r, "Negative for influenza A and B.", "Negative.")
	},
	"monospot": func(r *rand.Rand, _ string) string {
		return pick(r, "Negative.", "Heterophile antibody negative.")
	},
	"h pylori breath test": func(r *rand.Rand, _ string) string {
		return pick(r, "Negative.", "Urea breath test negative.")
	},
	"stool culture": func(r *rand.Rand, _ string) string {
		return pick(r, "No pathogens isolated.", "No enteric pathogens isolated.")
	},
	"sti swab": func(*rand.Rand, string) string { return "Chlamydia and gonorrhoea not detected." },
	"peak flow": func(r *rand.Rand, _ string) string {
		return fmt.Sprintf("Peak flow %d%% of predicted, no diurnal variability; normal.", 90+r.IntN(16))
	},
	"ecg": func(r *rand.Rand, _ string) string {
		return pick(r,
			fmt.Sprintf("Sinus rhythm at %d/min, normal axis, no acute ST or T wave change.", 60+r.IntN(30)),
			fmt.Sprintf("Normal ECG: sinus rhythm %d/min, no ST segment change.", 60+r.IntN(30)))
	},
	"chest x ray": func(r *rand.Rand, _ string) string {
		return pick(r, "Clear lungs, normal heart size, no consolidation.", "Normal chest radiograph: clear lung fields, no consolidation.")
	},
	"abdominal x ray": func(*rand.Rand, string) string { return "Normal bowel gas pattern, no obstruction." },
	"joint x ray": func(r *rand.Rand, _ string) string {
		return pick(r, "No fracture; joint spaces preserved; normal.", "Normal joint radiograph.")
	},
	"spine x ray": func(*rand.Rand, string) string { return "Normal alignment, no fracture, disc spaces preserved." },
	"spirometry": func(r *rand.Rand, _ string) string {
		return fmt.Sprintf("FEV1/FVC %.2f, FEV1 %d%% of predicted, no significant bronchodilator reversibility; normal.", 0.75+0.1*r.Float64(), 88+r.IntN(20))
	},
	"abdominal ultrasound": func(r *rand.Rand, _ string) string {
		return pick(r, "Normal liver, gallbladder and spleen; no stones, no duct dilatation.", "Normal abdominal ultrasound.")
	},
	"renal ultrasound": func(*rand.Rand, string) string { return "Normal-sized kidneys, no hydronephrosis, bladder normal." },
	"pelvic ultrasound": func(_ *rand.Rand, sex string) string {
		if sex == "male" {
			return "Bladder normal, prostate not enlarged, no free fluid."
		}
		return "Normal uterus and ovaries, no free fluid."
	},
	"echocardiogram": func(r *rand.Rand, _ string) string {
		return pick(r, "Normal left ventricular size and function, no effusion, valves normal.", "Normal echocardiogram.")
	},
	"doppler ultrasound leg": func(*rand.Rand, string) string {
		return "Deep veins fully compressible; no deep vein thrombosis; normal study."
	},
	"ct head": func(*rand.Rand, string) string {
		return "Normal study: no intracranial haemorrhage, mass or acute abnormality."
	},
	"ct abdomen": func(*rand.Rand, string) string {
		return "Normal study: no calculus, hydronephrosis or other acute abnormality."
	},
	"ct chest":  func(*rand.Rand, string) string { return "Normal study: no pulmonary embolism, consolidation or mass." },
	"mri brain": func(*rand.Rand, string) string { return "Normal brain, no acute abnormality." },
	"mri spine": func(*rand.Rand, string) string {
		return "Normal disc heights, no disc protrusion or nerve root compression."
	},
	"mri knee": func(*rand.Rand, string) string {
		return "Normal knee: menisci and ligaments intact, no degenerative change."
	},
}

func pick(r *rand.Rand, options ...string) string { return options[r.IntN(len(options))] }
