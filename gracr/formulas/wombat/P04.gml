# WOMBAT pattern 4 (App. H.1 of the WOMBAT paper), relaxed.
# KRFP SMARTS: [!#1][CH]([!#1])C(=O)O[CH2][CH2]N([CH2][CH3])[CH2][CH3]
# written by scripts/wombat_formulas.py; do not edit by hand
# [CHD3]C(=O)O[CH2][CH2]N([CH2][CH3])[CH2][CH3]
# relaxed SMARTS as graded modal logic (gracr.domains.chem); root = atom 4 [CH2]
attribute element = H, He, Li, Be, B, C, N, O, F, Ne, Na, Mg, Al, Si, P, S, Cl, Ar, K, Ca, Sc, Ti, V, Cr, Mn, Fe, Co, Ni, Cu, Zn, Ga, Ge, As, Se, Br, Kr, Rb, Sr, Y, Zr, Nb, Mo, Tc, Ru, Rh, Pd, Ag, Cd, In, Sn, Sb, Te, I, Xe, Cs, Ba, La, Ce, Pr, Nd, Pm, Sm, Eu, Gd, Tb, Dy, Ho, Er, Tm, Yb, Lu, Hf, Ta, W, Re, Os, Ir, Pt, Au, Hg, Tl, Pb, Bi, Po, At, Rn, Fr, Ra, Ac, Th, Pa, U, Np, Pu, Am, Cm, Bk, Cf, Es, Fm
attribute hydrogens = H0, H1, H2, H3, H4, H5, H6, H7, H8, H9
attribute charge = neg3, neg2, neg1, zero, pos1, pos2, pos3
attribute aromatic = no, yes
relations single, double, triple, aromatic
let atom0 = ((element=C & aromatic=no) & hydrogens=H1 & (exactly 3 true))    # atom 0: [CHD3]
let atom1 = (element=C & aromatic=no)    # atom 1: C
let atom2 = (element=O & aromatic=no)    # atoms 2, 3: O, O
let atom4 = ((element=C & aromatic=no) & hydrogens=H2)    # atoms 4, 5, 7, 9: [CH2], [CH2], [CH2], [CH2]
let atom6 = (element=N & aromatic=no)    # atom 6: N
let atom8 = ((element=C & aromatic=no) & hydrogens=H3)    # atoms 8, 10: [CH3], [CH3]
let from0 = atom0 & <1>{single, aromatic} atom1
let from2 = atom2 & <1>{double} atom1
let from1 = atom1 & <1>{single, aromatic} atom2 & <1>{single, aromatic} from0 & <1>{double} from2 & <2>{single, aromatic} (atom2 | from0) & (<2>{single, aromatic} atom2 | <1>{single, aromatic} atom2 & <1>{double} from2 | <2>{double} from2) & (<2>{single, aromatic} from0 | <1>{single, aromatic} from0 & <1>{double} from2 | <2>{double} from2) & (<3>{single, aromatic} (atom2 | from0) | <2>{single, aromatic} (atom2 | from0) & <1>{double} from2 | <1>{single, aromatic} (atom2 | from0) & <2>{double} from2 | <3>{double} from2)
let from3 = atom2 & <1>{single, aromatic} atom4 & <1>{single, aromatic} from1 & <2>{single, aromatic} (atom4 | from1)
let from8 = atom8 & <1>{single, aromatic} atom4
let from7 = atom4 & <1>{single, aromatic} atom6 & <1>{single, aromatic} from8 & <2>{single, aromatic} (atom6 | from8)
let from6 = atom6 & <1>{single, aromatic} atom4 & <2>{single, aromatic} from7 & <3>{single, aromatic} (atom4 | from7)
let from5 = atom4 & <1>{single, aromatic} atom4 & <1>{single, aromatic} from6 & <2>{single, aromatic} (atom4 | from6)
let match = atom4 & <1>{single, aromatic} from3 & <1>{single, aromatic} from5 & <2>{single, aromatic} (from3 | from5)
classify exists match
