import os
import sys
os.environ["HSA_OVERRIDE_GFX_VERSION"] = "12.0.0" 
os.environ["HSA_XNACK"] = "1"
os.environ['HSA_ENABLE_SDMA']='1' 
os.environ['AMD_SERIALIZE_KERNEL']='3'
import hipdf

df = hipdf.DataFrame({
    'A': [1, 2, 3],
    'B': [4, 5, 6]
})
print(df.head())
