# WOMBAT pattern 1 (App. H.1 of the WOMBAT paper), relaxed.
# KRFP SMARTS: [!#1][CH]([NH]C(=O)[!#1])C(Cl)(Cl)Cl
# written by scripts/wombat_formulas.py; do not edit by hand
# [CHD3]([NH][CD3](=O))C(Cl)(Cl)Cl
# relaxed SMARTS as graded modal logic (gracr.domains.chem); root = atom 0 [CHD3]
attribute element = H, He, Li, Be, B, C, N, O, F, Ne, Na, Mg, Al, Si, P, S, Cl, Ar, K, Ca, Sc, Ti, V, Cr, Mn, Fe, Co, Ni, Cu, Zn, Ga, Ge, As, Se, Br, Kr, Rb, Sr, Y, Zr, Nb, Mo, Tc, Ru, Rh, Pd, Ag, Cd, In, Sn, Sb, Te, I, Xe, Cs, Ba, La, Ce, Pr, Nd, Pm, Sm, Eu, Gd, Tb, Dy, Ho, Er, Tm, Yb, Lu, Hf, Ta, W, Re, Os, Ir, Pt, Au, Hg, Tl, Pb, Bi, Po, At, Rn, Fr, Ra, Ac, Th, Pa, U, Np, Pu, Am, Cm, Bk, Cf, Es, Fm
attribute hydrogens = H0, H1, H2, H3, H4, H5, H6, H7, H8, H9
attribute charge = neg3, neg2, neg1, zero, pos1, pos2, pos3
attribute aromatic = no, yes
relations single, double, triple, aromatic
let atom0 = ((element=C & aromatic=no) & hydrogens=H1 & (exactly 3 true))    # atom 0: [CHD3]
let atom1 = ((element=N & aromatic=no) & hydrogens=H1)    # atom 1: [NH]
let atom2 = ((element=C & aromatic=no) & (exactly 3 true))    # atom 2: [CD3]
let atom3 = (element=O & aromatic=no)    # atom 3: O
let atom4 = (element=C & aromatic=no)    # atom 4: C
let atom5 = (element=Cl & aromatic=no)    # atoms 5, 6, 7: Cl, Cl, Cl
let from3 = atom3 & <1>{double} atom2
let from2 = atom2 & <1>{single, aromatic} atom1 & <1>{double} from3 & (<2>{single, aromatic} atom1 | <1>{single, aromatic} atom1 & <1>{double} from3 | <2>{double} from3)
let from1 = atom1 & <1>{single, aromatic} atom0 & <1>{single, aromatic} from2 & <2>{single, aromatic} (atom0 | from2)
let from5 = atom5 & <1>{single, aromatic} atom4
let from4 = atom4 & <1>{single, aromatic} atom0 & <3>{single, aromatic} from5 & <4>{single, aromatic} (atom0 | from5)
let match = atom0 & <1>{single, aromatic} from1 & <1>{single, aromatic} from4 & <2>{single, aromatic} (from1 | from4)
classify exists match
