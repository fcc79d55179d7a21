# WOMBAT pattern 8 (App. H.1 of the WOMBAT paper), relaxed.
# KRFP SMARTS: [!#1][CH]([!#1])[CH2]C(=O)[!#1]
# written by scripts/wombat_formulas.py; do not edit by hand
# [CHD3][CH2][CD3](=O)
# relaxed SMARTS as graded modal logic (gracr.domains.chem); root = atom 1 [CH2]
attribute element = H, He, Li, Be, B, C, N, O, F, Ne, Na, Mg, Al, Si, P, S, Cl, Ar, K, Ca, Sc, Ti, V, Cr, Mn, Fe, Co, Ni, Cu, Zn, Ga, Ge, As, Se, Br, Kr, Rb, Sr, Y, Zr, Nb, Mo, Tc, Ru, Rh, Pd, Ag, Cd, In, Sn, Sb, Te, I, Xe, Cs, Ba, La, Ce, Pr, Nd, Pm, Sm, Eu, Gd, Tb, Dy, Ho, Er, Tm, Yb, Lu, Hf, Ta, W, Re, Os, Ir, Pt, Au, Hg, Tl, Pb, Bi, Po, At, Rn, Fr, Ra, Ac, Th, Pa, U, Np, Pu, Am, Cm, Bk, Cf, Es, Fm
attribute hydrogens = H0, H1, H2, H3, H4, H5, H6, H7, H8, H9
attribute charge = neg3, neg2, neg1, zero, pos1, pos2, pos3
attribute aromatic = no, yes
relations single, double, triple, aromatic
let atom0 = ((element=C & aromatic=no) & hydrogens=H1 & (exactly 3 true))    # atom 0: [CHD3]
let atom1 = ((element=C & aromatic=no) & hydrogens=H2)    # atom 1: [CH2]
let atom2 = ((element=C & aromatic=no) & (exactly 3 true))    # atom 2: [CD3]
let atom3 = (element=O & aromatic=no)    # atom 3: O
let from0 = atom0 & <1>{single, aromatic} atom1
let from3 = atom3 & <1>{double} atom2
let from2 = atom2 & <1>{single, aromatic} atom1 & <1>{double} from3 & (<2>{single, aromatic} atom1 | <1>{single, aromatic} atom1 & <1>{double} from3 | <2>{double} from3)
let match = atom1 & <1>{single, aromatic} from0 & <1>{single, aromatic} from2 & <2>{single, aromatic} (from0 | from2)
classify exists match
