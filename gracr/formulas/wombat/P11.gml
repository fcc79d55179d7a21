# WOMBAT pattern 11 (App. H.1 of the WOMBAT paper), relaxed.
# KRFP SMARTS: [!#1][CH]([!#1])[CH3]
# written by scripts/wombat_formulas.py; do not edit by hand
# [!#1][CH]([!#1])[CH3]
# relaxed SMARTS as graded modal logic (gracr.domains.chem); root = atom 1 [CH]
attribute element = H, He, Li, Be, B, C, N, O, F, Ne, Na, Mg, Al, Si, P, S, Cl, Ar, K, Ca, Sc, Ti, V, Cr, Mn, Fe, Co, Ni, Cu, Zn, Ga, Ge, As, Se, Br, Kr, Rb, Sr, Y, Zr, Nb, Mo, Tc, Ru, Rh, Pd, Ag, Cd, In, Sn, Sb, Te, I, Xe, Cs, Ba, La, Ce, Pr, Nd, Pm, Sm, Eu, Gd, Tb, Dy, Ho, Er, Tm, Yb, Lu, Hf, Ta, W, Re, Os, Ir, Pt, Au, Hg, Tl, Pb, Bi, Po, At, Rn, Fr, Ra, Ac, Th, Pa, U, Np, Pu, Am, Cm, Bk, Cf, Es, Fm
attribute hydrogens = H0, H1, H2, H3, H4, H5, H6, H7, H8, H9
attribute charge = neg3, neg2, neg1, zero, pos1, pos2, pos3
attribute aromatic = no, yes
relations single, double, triple, aromatic
let atom0 = !element=H    # atoms 0, 2: [!#1], [!#1]
let atom1 = ((element=C & aromatic=no) & hydrogens=H1)    # atom 1: [CH]
let atom3 = ((element=C & aromatic=no) & hydrogens=H3)    # atom 3: [CH3]
let from0 = atom0 & <1>{single, aromatic} atom1
let from3 = atom3 & <1>{single, aromatic} atom1
let match = atom1 & <2>{single, aromatic} from0 & <1>{single, aromatic} from3 & <3>{single, aromatic} (from0 | from3)
classify exists match
