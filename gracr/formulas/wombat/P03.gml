# WOMBAT pattern 3 (App. H.1 of the WOMBAT paper), relaxed.
# KRFP SMARTS: [!#1][CH]([!#1])C(=O)[NH][NH]C(=O)[CH2][CH2][CH2][CH2][CH2][CH2][CH3]
# written by scripts/wombat_formulas.py; do not edit by hand
# [CHD3]C(=O)[N;H1,H2][N;H1,H2]C(=O)[CH2][CH2][CH2][CH2][CH2][CH2][CH3]
# relaxed SMARTS as graded modal logic (gracr.domains.chem); root = atom 7 [CH2]
attribute element = H, He, Li, Be, B, C, N, O, F, Ne, Na, Mg, Al, Si, P, S, Cl, Ar, K, Ca, Sc, Ti, V, Cr, Mn, Fe, Co, Ni, Cu, Zn, Ga, Ge, As, Se, Br, Kr, Rb, Sr, Y, Zr, Nb, Mo, Tc, Ru, Rh, Pd, Ag, Cd, In, Sn, Sb, Te, I, Xe, Cs, Ba, La, Ce, Pr, Nd, Pm, Sm, Eu, Gd, Tb, Dy, Ho, Er, Tm, Yb, Lu, Hf, Ta, W, Re, Os, Ir, Pt, Au, Hg, Tl, Pb, Bi, Po, At, Rn, Fr, Ra, Ac, Th, Pa, U, Np, Pu, Am, Cm, Bk, Cf, Es, Fm
attribute hydrogens = H0, H1, H2, H3, H4, H5, H6, H7, H8, H9
attribute charge = neg3, neg2, neg1, zero, pos1, pos2, pos3
attribute aromatic = no, yes
relations single, double, triple, aromatic
let atom0 = ((element=C & aromatic=no) & hydrogens=H1 & (exactly 3 true))    # atom 0: [CHD3]
let atom1 = (element=C & aromatic=no)    # atoms 1, 5: C, C
let atom2 = (element=O & aromatic=no)    # atoms 2, 6: O, O
let atom3 = ((element=N & aromatic=no) & (hydrogens=H1 | hydrogens=H2))    # atoms 3, 4: [N;H1,H2], [N;H1,H2]
let atom7 = ((element=C & aromatic=no) & hydrogens=H2)    # atoms 7, 8, 9, 10, 11, 12: [CH2], [CH2], [CH2], [CH2], [CH2], [CH2]
let atom13 = ((element=C & aromatic=no) & hydrogens=H3)    # atom 13: [CH3]
let from0 = atom0 & <1>{single, aromatic} atom1
let from2 = atom2 & <1>{double} atom1
let from1 = atom1 & <1>{single, aromatic} atom3 & <1>{single, aromatic} from0 & <1>{double} from2 & <2>{single, aromatic} (atom3 | from0) & (<2>{single, aromatic} atom3 | <1>{single, aromatic} atom3 & <1>{double} from2 | <2>{double} from2) & (<2>{single, aromatic} from0 | <1>{single, aromatic} from0 & <1>{double} from2 | <2>{double} from2) & (<3>{single, aromatic} (atom3 | from0) | <2>{single, aromatic} (atom3 | from0) & <1>{double} from2 | <1>{single, aromatic} (atom3 | from0) & <2>{double} from2 | <3>{double} from2)
let from3 = atom3 & <1>{single, aromatic} atom3 & <1>{single, aromatic} from1 & <2>{single, aromatic} (atom3 | from1)
let from4 = atom3 & <1>{single, aromatic} atom1 & <1>{single, aromatic} from3 & <2>{single, aromatic} (atom1 | from3)
let from5 = atom1 & <1>{single, aromatic} atom7 & <1>{single, aromatic} from4 & <1>{double} from2 & <2>{single, aromatic} (atom7 | from4) & (<2>{single, aromatic} atom7 | <1>{single, aromatic} atom7 & <1>{double} from2 | <2>{double} from2) & (<2>{single, aromatic} from4 | <1>{single, aromatic} from4 & <1>{double} from2 | <2>{double} from2) & (<3>{single, aromatic} (atom7 | from4) | <2>{single, aromatic} (atom7 | from4) & <1>{double} from2 | <1>{single, aromatic} (atom7 | from4) & <2>{double} from2 | <3>{double} from2)
let from13 = atom13 & <1>{single, aromatic} atom7
let from12 = atom7 & <1>{single, aromatic} atom7 & <1>{single, aromatic} from13 & <2>{single, aromatic} (atom7 | from13)
let from11 = atom7 & <1>{single, aromatic} atom7 & <1>{single, aromatic} from12 & <2>{single, aromatic} (atom7 | from12)
let from10 = atom7 & <1>{single, aromatic} atom7 & <1>{single, aromatic} from11 & <2>{single, aromatic} (atom7 | from11)
let from9 = atom7 & <1>{single, aromatic} atom7 & <1>{single, aromatic} from10 & <2>{single, aromatic} (atom7 | from10)
let from8 = atom7 & <1>{single, aromatic} atom7 & <1>{single, aromatic} from9 & <2>{single, aromatic} (atom7 | from9)
let match = atom7 & <1>{single, aromatic} from5 & <1>{single, aromatic} from8 & <2>{single, aromatic} (from5 | from8)
classify exists match
