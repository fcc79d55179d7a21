# WOMBAT pattern 5 (App. H.1 of the WOMBAT paper), relaxed.
# KRFP SMARTS: [!#1][CH]([CH2]C(=N[NH]C(=O)[!#1])[!#1])C(=O)[OH]
# written by scripts/wombat_formulas.py; do not edit by hand
# [CHD3]([CH2][CD3](=N[N;H1,H2][CD3](=O)))C(=O)[OH]
# relaxed SMARTS as graded modal logic (gracr.domains.chem); root = atom 2 [CD3]
attribute element = H, He, Li, Be, B, C, N, O, F, Ne, Na, Mg, Al, Si, P, S, Cl, Ar, K, Ca, Sc, Ti, V, Cr, Mn, Fe, Co, Ni, Cu, Zn, Ga, Ge, As, Se, Br, Kr, Rb, Sr, Y, Zr, Nb, Mo, Tc, Ru, Rh, Pd, Ag, Cd, In, Sn, Sb, Te, I, Xe, Cs, Ba, La, Ce, Pr, Nd, Pm, Sm, Eu, Gd, Tb, Dy, Ho, Er, Tm, Yb, Lu, Hf, Ta, W, Re, Os, Ir, Pt, Au, Hg, Tl, Pb, Bi, Po, At, Rn, Fr, Ra, Ac, Th, Pa, U, Np, Pu, Am, Cm, Bk, Cf, Es, Fm
attribute hydrogens = H0, H1, H2, H3, H4, H5, H6, H7, H8, H9
attribute charge = neg3, neg2, neg1, zero, pos1, pos2, pos3
attribute aromatic = no, yes
relations single, double, triple, aromatic
let atom0 = ((element=C & aromatic=no) & hydrogens=H1 & (exactly 3 true))    # atom 0: [CHD3]
let atom1 = ((element=C & aromatic=no) & hydrogens=H2)    # atom 1: [CH2]
let atom2 = ((element=C & aromatic=no) & (exactly 3 true))    # atoms 2, 5: [CD3], [CD3]
let atom3 = (element=N & aromatic=no)    # atom 3: N
let atom4 = ((element=N & aromatic=no) & (hydrogens=H1 | hydrogens=H2))    # atom 4: [N;H1,H2]
let atom6 = (element=O & aromatic=no)    # atoms 6, 8: O, O
let atom7 = (element=C & aromatic=no)    # atom 7: C
let atom9 = ((element=O & aromatic=no) & hydrogens=H1)    # atom 9: [OH]
let from8 = atom6 & <1>{double} atom7
let from9 = atom9 & <1>{single, aromatic} atom7
let from7 = atom7 & <1>{single, aromatic} atom0 & <1>{single, aromatic} from9 & <1>{double} from8 & <2>{single, aromatic} (atom0 | from9) & (<2>{single, aromatic} atom0 | <1>{single, aromatic} atom0 & <1>{double} from8 | <2>{double} from8) & (<2>{single, aromatic} from9 | <1>{single, aromatic} from9 & <1>{double} from8 | <2>{double} from8) & (<3>{single, aromatic} (atom0 | from9) | <2>{single, aromatic} (atom0 | from9) & <1>{double} from8 | <1>{single, aromatic} (atom0 | from9) & <2>{double} from8 | <3>{double} from8)
let from0 = atom0 & <1>{single, aromatic} atom1 & <1>{single, aromatic} from7 & <2>{single, aromatic} (atom1 | from7)
let from1 = atom1 & <1>{single, aromatic} atom2 & <1>{single, aromatic} from0 & <2>{single, aromatic} (atom2 | from0)
let from6 = atom6 & <1>{double} atom2
let from5 = atom2 & <1>{single, aromatic} atom4 & <1>{double} from6 & (<2>{single, aromatic} atom4 | <1>{single, aromatic} atom4 & <1>{double} from6 | <2>{double} from6)
let from4 = atom4 & <1>{single, aromatic} atom3 & <1>{single, aromatic} from5 & <2>{single, aromatic} (atom3 | from5)
let from3 = atom3 & <1>{single, aromatic} from4 & <1>{double} atom2 & (<2>{single, aromatic} from4 | <1>{single, aromatic} from4 & <1>{double} atom2 | <2>{double} atom2)
let match = atom2 & <1>{single, aromatic} from1 & <1>{double} from3 & (<2>{single, aromatic} from1 | <1>{single, aromatic} from1 & <1>{double} from3 | <2>{double} from3)
classify exists match
